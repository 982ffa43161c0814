package serve

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"triage/corpus"
	"triage/corpus/shard"
)

// WriteTreeParquet writes t as one corpus shard (the corpus schema, zstd),
// readable by shard.LoadTrees, `triage eval`, DuckDB and pyarrow.
func WriteTreeParquet(w io.Writer, t *corpus.Tree, rootIndex int) error {
	sw := shard.NewShardWriter(w, shard.WriterOptions{Metadata: map[string]string{"triage.source": "serve"}})
	if err := sw.WriteTree(t, rootIndex); err != nil {
		return err
	}
	return sw.Close()
}

// SessionFileName is the shard file of a saved session; it matches
// shard.ShardGlob, so a sessions folder is a corpus folder.
func SessionFileName(id string) string { return "part-session-" + id + ".parquet" }

// handleTree exports a session's tree so far: ?format=json (default, the
// corpus.Tree JSON) or ?format=parquet (one corpus shard).
func (s *Server) handleTree(w http.ResponseWriter, r *http.Request) {
	ref := s.lookup(w, r)
	if ref == nil {
		return
	}
	ss, t, err := ref.tree(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		writeJSON(w, http.StatusOK, t)
	case "parquet":
		w.Header().Set("Content-Type", "application/vnd.apache.parquet")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", SessionFileName(ss.id)))
		if err := WriteTreeParquet(w, t, ss.req.RootIndex); err != nil {
			s.opts.Logger.Error("export parquet", "session", ss.id, "err", err)
		}
	default:
		s.fail(w, r, errorf(http.StatusBadRequest, "format %q: want json or parquet", f))
	}
}

// save writes session id's tree t to SessionsDir through a temporary
// file renamed when complete, so a corpus reader never sees half a shard.
func (s *Server) save(id string, t *corpus.Tree, rootIndex int) (string, error) {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if err := os.MkdirAll(s.opts.SessionsDir, 0o755); err != nil {
		return "", fmt.Errorf("save session %s: %w", id, err)
	}
	path := filepath.Join(s.opts.SessionsDir, SessionFileName(id))
	// Its own temporary name: replicas sharing a folder may export one
	// session at once (each writes the same tree).
	tmp := filepath.Join(s.opts.SessionsDir, "."+SessionFileName(id)+"."+newID()+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return "", fmt.Errorf("save session %s: %w", id, err)
	}
	err = WriteTreeParquet(f, t, rootIndex)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("save session %s: %w", id, err)
	}
	return path, nil
}
