package shard

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go"

	"triage/corpus"
)

// ReadOptions select the trees a TreeReader yields and the columns it
// decodes.
type ReadOptions struct {
	// Split keeps only the trees of this split ("": every split). It is
	// decided from the non-text columns, so the text of other splits is
	// never decoded.
	Split string
	// TreeID keeps only the tree with this id ("": every tree).
	TreeID string
	// Columns is the projection decoded for the trees kept.
	Columns Columns
	// Files is the number of shard files decoded concurrently, ahead of
	// the caller (<= 0: 1). Each holds at most a few decoded trees, so
	// memory is bounded by Files, not by the corpus.
	Files int
}

// treesAhead is how many decoded trees one file's decoder may hold before
// the caller takes them.
const treesAhead = 2

// Rows decoded at once: many of the small non-text projection, few whole
// rows (a row holds programs and feedback of a few KiB, and the Parquet
// reader keeps a copy of the last batch).
const (
	replayBatch = 1024
	wholeBatch  = 64
)

// TreeReader yields the trees of the union of corpus folders one at a
// time, in shard order (folder by folder, files by name, trees in file
// order), each tree id once (the copy in the earliest file wins). Shard
// files are decoded in background goroutines, at most ReadOptions.Files at
// a time. A TreeReader is for one goroutine; Close it when done.
type TreeReader struct {
	opts    ReadOptions
	files   []string
	sources map[string]string // shard -> source of its rows that name none
	next    int               // index of the next file to start decoding
	queue   []*fileStream     // files being decoded, in file order
	seen    map[string]bool
	done    chan struct{}
	wg      sync.WaitGroup
	err     error
	once    sync.Once
}

// fileStream is one shard file being decoded: its trees arrive on out,
// which is closed after the last one or an error.
type fileStream struct {
	out chan fileItem
	ids []string // tree ids of this file taken by Next, for de-duplication
}

// fileItem is one tree of a file: its id, and the tree unless it was
// filtered out; or an error that ends the file.
type fileItem struct {
	id   string
	tree *corpus.Tree
	err  error
}

// errReaderClosed stops a file decoder whose reader was closed.
var errReaderClosed = errors.New("tree reader closed")

// OpenTrees lists the shards of the corpus folders and returns a reader of
// their trees. Nothing is decoded until the first Next.
func OpenTrees(dirs []string, opts ReadOptions) (*TreeReader, error) {
	switch opts.Columns {
	case ReplayColumns, ScorerColumns, AllColumns:
	default:
		return nil, fmt.Errorf("open trees: unknown projection %v", opts.Columns)
	}
	files, err := ListShards(dirs...)
	if err != nil {
		return nil, err
	}
	sources, err := shardSources(dirs)
	if err != nil {
		return nil, err
	}
	if opts.Files <= 0 {
		opts.Files = 1
	}
	return &TreeReader{opts: opts, files: files, sources: sources, seen: map[string]bool{}, done: make(chan struct{})}, nil
}

// Columns returns the projection the reader decodes.
func (r *TreeReader) Columns() Columns { return r.opts.Columns }

// Shards returns the number of shard files the reader reads.
func (r *TreeReader) Shards() int { return len(r.files) }

// Next returns the next tree, or io.EOF after the last one. After an error
// every call returns the same error.
func (r *TreeReader) Next() (*corpus.Tree, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		for len(r.queue) < r.opts.Files && r.next < len(r.files) {
			r.start(r.files[r.next])
			r.next++
		}
		if len(r.queue) == 0 {
			r.err = io.EOF
			continue
		}
		fs := r.queue[0]
		it, ok := <-fs.out
		switch {
		case !ok:
			for _, id := range fs.ids {
				r.seen[id] = true
			}
			r.queue = r.queue[1:]
		case it.err != nil:
			r.err = fmt.Errorf("read trees: %w", it.err)
			r.Close()
		case r.seen[it.id]:
			// A copy of a tree already read from an earlier file.
		default:
			fs.ids = append(fs.ids, it.id)
			if it.tree != nil {
				return it.tree, nil
			}
		}
	}
}

// Close stops the decoders and closes the files. It is safe to call more
// than once.
func (r *TreeReader) Close() error {
	r.once.Do(func() {
		close(r.done)
		for _, fs := range r.queue {
			for range fs.out { // unblock and drain
			}
		}
		r.queue = nil
		r.wg.Wait()
	})
	return nil
}

func (r *TreeReader) start(path string) {
	fs := &fileStream{out: make(chan fileItem, treesAhead)}
	r.queue = append(r.queue, fs)
	src := r.sources[path]
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(fs.out)
		emit := func(it fileItem) error {
			select {
			case fs.out <- it:
				return nil
			case <-r.done:
				return errReaderClosed
			}
		}
		if err := decodeFile(path, src, r.opts, emit); err != nil && !errors.Is(err, errReaderClosed) {
			_ = emit(fileItem{err: err})
		}
	}()
}

// decodeFile emits every tree of one shard file in file order: the kept
// ones decoded to opts.Columns, the others as bare ids. The non-text
// columns are read first; the text of a kept tree is then read for its
// rows alone. The trees of a shard written before the source column get
// source src.
func decodeFile(path, src string, opts ReadOptions, emit func(fileItem) error) error {
	return withShard(path, func(pf *parquet.File) error {
		if !hasSourceColumn(pf) {
			inner := emit
			emit = func(it fileItem) error {
				if it.tree != nil {
					it.tree.Source = src
				}
				return inner(it)
			}
		}
		return decodeTrees(pf, path, opts, emit)
	})
}

// decodeTrees is decodeFile on the opened file.
func decodeTrees(pf *parquet.File, path string, opts ReadOptions, emit func(fileItem) error) error {
	if opts.Columns == AllColumns && opts.Split == "" && opts.TreeID == "" {
		// Every row is kept whole: one pass.
		return groupTrees(pf, path, wholeBatch, func(r *NodeRow) string { return r.TreeID },
			func(_ int64, rows []NodeRow) error {
				t, err := TreeFromRows(rows)
				if err != nil {
					return fmt.Errorf("shard %s: %w", path, err)
				}
				return emit(fileItem{id: t.ID, tree: t})
			})
	}
	var text *parquet.GenericReader[scorerTextRow]
	var whole *parquet.GenericReader[NodeRow]
	defer func() {
		if text != nil {
			text.Close()
		}
		if whole != nil {
			whole.Close()
		}
	}()
	return groupTrees(pf, path, replayBatch, func(r *replayRow) string { return r.TreeID },
		func(start int64, rows []replayRow) error {
			r0 := &rows[0]
			if (opts.Split != "" && r0.Split != opts.Split) || (opts.TreeID != "" && r0.TreeID != opts.TreeID) {
				return emit(fileItem{id: r0.TreeID})
			}
			var t *corpus.Tree
			var err error
			if opts.Columns == AllColumns {
				if whole == nil {
					whole = parquet.NewGenericReader[NodeRow](pf)
				}
				var full []NodeRow
				if full, err = readRange(whole, start, len(rows)); err == nil {
					t, err = TreeFromRows(full)
				}
			} else {
				nr := make([]NodeRow, len(rows))
				for i := range rows {
					nr[i] = rows[i].nodeRow()
				}
				t, err = TreeFromRows(nr)
				if err == nil && opts.Columns == ScorerColumns {
					if text == nil {
						text = parquet.NewGenericReader[scorerTextRow](pf)
					}
					var tr []scorerTextRow
					if tr, err = readRange(text, start, len(rows)); err == nil {
						err = addScorerText(t, tr)
					}
				}
			}
			if err != nil {
				return fmt.Errorf("shard %s: %w", path, err)
			}
			return emit(fileItem{id: t.ID, tree: t})
		})
}

// groupTrees reads a file as rows of T in batches of batch and calls fn
// with each tree's contiguous run of rows and the index of its first row.
// The rows passed to fn are reused after it returns (the strings and
// slices they hold are not). Rows of one tree that are not contiguous are
// an error.
func groupTrees[T any](pf *parquet.File, path string, batch int, treeID func(*T) string, fn func(start int64, rows []T) error) error {
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, batch)
	inFile := map[string]bool{}
	var cur []T
	var curStart, pos int64
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		inFile[treeID(&cur[0])] = true
		err := fn(curStart, cur)
		clear(cur)
		cur = cur[:0]
		return err
	}
	for {
		n, rerr := r.Read(buf)
		for i := range n {
			row := &buf[i]
			if len(cur) > 0 && treeID(&cur[0]) != treeID(row) {
				if err := flush(); err != nil {
					return err
				}
			}
			if len(cur) == 0 {
				if id := treeID(row); inFile[id] {
					return fmt.Errorf("shard %s: rows of tree %s are not contiguous", path, id)
				}
				curStart = pos
			}
			cur = append(cur, *row)
			pos++
		}
		clear(buf[:n]) // Read must not reuse the slices now held by cur
		if errors.Is(rerr, io.EOF) {
			return flush()
		}
		if rerr != nil {
			return corruptShard(path, rerr)
		}
	}
}

// readRange reads the n rows of r from row index start on.
func readRange[T any](r *parquet.GenericReader[T], start int64, n int) ([]T, error) {
	if err := r.SeekToRow(start); err != nil {
		return nil, fmt.Errorf("seek to row %d: %w", start, err)
	}
	rows := make([]T, n)
	for got := 0; got < n; {
		k, err := r.Read(rows[got:])
		got += k
		if got < n && err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read rows %d..%d: %w", start, start+int64(n), err)
		}
	}
	return rows, nil
}
