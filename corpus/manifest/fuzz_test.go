package manifest_test

import (
	"os"
	"path/filepath"
	"testing"

	"triage/corpus/manifest"
)

// FuzzReadManifest: a manifest file of arbitrary bytes gives an error or a
// manifest, never a panic.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"schema":"triage-corpus/1","shards":[{"index":0,"file":"part-00000.parquet","rows":3}]}`))
	f.Add([]byte(`{"schema":"x"}`))
	f.Add([]byte(`{`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "manifest.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = manifest.ReadManifest(path)
	})
}
