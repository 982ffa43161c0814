package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/model/priority"
	"triage/policy"
)

// Group is one training example: the expanded edits of one parent node
// (they share the parent's text, so the model packs them behind one copy of
// it), each with its label. Edges come from policy.Input, the same function
// that builds scoring inputs, so a group's model input equals what the
// learned policy scores for those edges.
type Group struct {
	TreeID string
	TaskID string
	Node   corpus.NodeID
	Edges  []priority.Edge
	// T is the solve distance of each edge (0 when censored: t > B); B is
	// its remaining depth b(e) = D − depth(child) + 1.
	T []int32
	B []int32
}

// GroupsOfTree returns the training groups of t: every node with at least
// one expanded edit, in node order, with those edits in the proposer's
// order. A tree without a fix gives none (CodeTriage trains on trees that
// hold a fix; their censored edges are kept).
func GroupsOfTree(t *corpus.Tree) []Group {
	if !t.HasFix() {
		return nil
	}
	var out []Group
	for i := range t.Nodes {
		n := &t.Nodes[i]
		var g Group
		for _, eid := range n.Edges {
			e := &t.Edges[eid]
			if e.Child == corpus.NoNode {
				continue
			}
			in := policy.Input(t, eid)
			// The label's b and the input's remaining depth are the same
			// number by definition; a corpus where they differ is corrupt.
			if int(e.Label.B) != in.Remaining {
				continue
			}
			g.Edges = append(g.Edges, in)
			t32 := e.Label.T
			if e.Label.Censored {
				t32 = 0
			}
			g.T = append(g.T, t32)
			g.B = append(g.B, e.Label.B)
		}
		if len(g.Edges) == 0 {
			continue
		}
		g.TreeID, g.TaskID, g.Node = t.ID, t.TaskID, n.ID
		out = append(out, g)
	}
	return out
}

// Source yields the trees of one split of a corpus, one at a time, in a
// fixed order; corpus readers implement it.
type Source interface {
	// Trees calls fn for every tree of the split, in order, until fn
	// returns an error (which Trees returns) or the trees run out.
	Trees(ctx context.Context, fn func(*corpus.Tree) error) error
}

// ShardSource reads the trees of one split from corpus folders, one tree
// at a time (shard.ScanTrees): memory holds one tree, not the corpus.
type ShardSource struct {
	Dirs  []string
	Split string
}

// Trees implements Source.
func (s ShardSource) Trees(ctx context.Context, fn func(*corpus.Tree) error) error {
	return shard.ScanTrees(s.Dirs, func(rows []shard.NodeRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(rows) == 0 || (s.Split != "" && rows[0].Split != s.Split) {
			return nil
		}
		t, err := shard.TreeFromRows(rows)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// TreeSlice is a Source over trees already in memory (tests, small corpora).
type TreeSlice []*corpus.Tree

// Trees implements Source.
func (s TreeSlice) Trees(ctx context.Context, fn func(*corpus.Tree) error) error {
	for _, t := range s {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// Stream is a pull-based reader of training groups: Next returns the next
// group of the epoch, then io.EOF. Groups pass through a seeded shuffle
// buffer of bounded size, so memory stays bounded whatever the corpus size
// and the order is a function of (seed, epoch) alone; Skip(n) fast-forwards
// past n groups without encoding them (resume).
type Stream struct {
	ch     chan streamItem
	cancel context.CancelFunc
	done   chan struct{}
	read   int64
}

type streamItem struct {
	g   Group
	err error
}

// NewStream starts reading src for one epoch. bufSize is the shuffle buffer
// (groups); 0 or 1 keeps the source order.
func NewStream(ctx context.Context, src Source, seed uint64, epoch int, bufSize int) *Stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{ch: make(chan streamItem, 64), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		rng := rand.New(rand.NewPCG(seed, uint64(epoch)+0x9e3779b97f4a7c15))
		var buf []Group
		send := func(it streamItem) bool {
			select {
			case s.ch <- it:
				return true
			case <-ctx.Done():
				return false
			}
		}
		err := src.Trees(ctx, func(t *corpus.Tree) error {
			for _, g := range GroupsOfTree(t) {
				if bufSize <= 1 {
					if !send(streamItem{g: g}) {
						return errStop
					}
					continue
				}
				if len(buf) < bufSize {
					buf = append(buf, g)
					continue
				}
				i := rng.IntN(len(buf))
				out := buf[i]
				buf[i] = g
				if !send(streamItem{g: out}) {
					return errStop
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			send(streamItem{err: err})
			return
		}
		rng.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
		for _, g := range buf {
			if !send(streamItem{g: g}) {
				return
			}
		}
	}()
	return s
}

// Next returns the next group, io.EOF at the end of the epoch, or the
// source's error.
func (s *Stream) Next() (Group, error) {
	it, ok := <-s.ch
	if !ok {
		return Group{}, io.EOF
	}
	if it.err != nil {
		return Group{}, fmt.Errorf("read training groups: %w", it.err)
	}
	s.read++
	return it.g, nil
}

// Skip discards the next n groups (resuming mid-epoch).
func (s *Stream) Skip(n int64) error {
	for i := int64(0); i < n; i++ {
		if _, err := s.Next(); err != nil {
			return err
		}
	}
	return nil
}

// Read is the number of groups returned so far.
func (s *Stream) Read() int64 { return s.read }

// Close stops the reader and waits for it.
func (s *Stream) Close() {
	s.cancel()
	for range s.ch {
	}
	<-s.done
}
