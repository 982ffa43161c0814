package shard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"triage/corpus"
)

// Defaults of the Parquet writer.
const (
	// DefaultRowsPerGroup bounds a row group (and so the writer's memory):
	// rows hold programs and feedback of a few KiB, so a group is a few MiB.
	DefaultRowsPerGroup = 1024
	// DefaultPageBufferSize is the page size; 1 MiB pages compress ~5.7×.
	DefaultPageBufferSize = 1 << 20
)

// WriterOptions configures a shard writer. Zero values take the defaults.
type WriterOptions struct {
	RowsPerGroup   int64
	PageBufferSize int
	// Metadata is stored in the file's key/value metadata.
	Metadata map[string]string
}

// ShardWriter writes trees as NodeRows to one Parquet file, zstd-compressed.
type ShardWriter struct {
	w     *parquet.GenericWriter[NodeRow]
	rows  int64
	trees int
	text  int64
}

// NewShardWriter starts a Parquet file on out.
func NewShardWriter(out io.Writer, opts WriterOptions) *ShardWriter {
	if opts.RowsPerGroup <= 0 {
		opts.RowsPerGroup = DefaultRowsPerGroup
	}
	if opts.PageBufferSize <= 0 {
		opts.PageBufferSize = DefaultPageBufferSize
	}
	wopts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(opts.RowsPerGroup),
		parquet.PageBufferSize(opts.PageBufferSize),
		parquet.CreatedBy("triage", SchemaVersion, ""),
		parquet.KeyValueMetadata("triage.schema", SchemaVersion),
	}
	for k, v := range opts.Metadata {
		wopts = append(wopts, parquet.KeyValueMetadata(k, v))
	}
	return &ShardWriter{w: parquet.NewGenericWriter[NodeRow](out, wopts...)}
}

// WriteTree appends every node of t as one row each.
func (s *ShardWriter) WriteTree(t *corpus.Tree, rootIndex int) error {
	return s.WriteRows(TreeRows(t, rootIndex))
}

// WriteRows appends rows; the rows of one tree must be written together.
func (s *ShardWriter) WriteRows(rows []NodeRow) error {
	if _, err := s.w.Write(rows); err != nil {
		return fmt.Errorf("write parquet rows: %w", err)
	}
	s.rows += int64(len(rows))
	for i := range rows {
		if rows[i].NodeID == 0 {
			s.trees++
		}
		s.text += RowTextBytes(&rows[i])
	}
	return nil
}

// Rows returns the number of rows written so far.
func (s *ShardWriter) Rows() int64 { return s.rows }

// Trees returns the number of trees (root rows) written so far.
func (s *ShardWriter) Trees() int { return s.trees }

// TextBytes returns the bytes of text (programs, feedback, diagnoses, edits,
// test names and messages) written so far.
func (s *ShardWriter) TextBytes() int64 { return s.text }

// Close flushes the last row group and writes the footer. It does not close
// the underlying writer.
func (s *ShardWriter) Close() error {
	if err := s.w.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}

// RowTextBytes is the text a row holds, in bytes: the program, feedback,
// diagnosis, raw reply, edits, test names and messages.
func RowTextBytes(r *NodeRow) int64 {
	n := len(r.Program) + len(r.Feedback) + len(r.Diagnosis) + len(r.Raw)
	for i := range r.Edits {
		n += len(r.Edits[i].Text) + len(r.Edits[i].Payload)
	}
	for i := range r.Tests {
		n += len(r.Tests[i].Name) + len(r.Tests[i].Message)
	}
	return int64(n)
}

// SyncWriteCloser is what a shard (or a manifest) is written to: a file,
// or a test double.
type SyncWriteCloser interface {
	io.Writer
	Sync() error
	Close() error
}

// CreateFunc opens a new file for writing (tests inject failures).
type CreateFunc func(path string) (SyncWriteCloser, error)

// CreateFile is the CreateFunc of real files: os.Create.
func CreateFile(path string) (SyncWriteCloser, error) { return os.Create(path) }

// WriteAtomic writes path via a temporary sibling ".<name>.tmp": the data is
// written, synced and closed, then renamed over path, and the directory is
// synced. On any error the temporary file is removed and path is untouched.
func WriteAtomic(create CreateFunc, path string, write func(w io.Writer) error, beforeRename func()) (err error) {
	if create == nil {
		create = CreateFile
	}
	dir, name := filepath.Split(path)
	tmp := filepath.Join(dir, "."+name+".tmp")
	f, err := create(tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if beforeRename != nil {
		beforeRename()
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	syncDir(dir)
	return nil
}

func syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
