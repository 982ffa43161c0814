package shard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"triage/corpus"
)

// CheckDirs returns bad input in the field Corpus (the corpus folders)
// unless every folder of dirs holds a corpus: at least one shard or one
// manifest (a build that made no tree yet has a manifest alone).
func CheckDirs(dirs []string) error {
	if len(dirs) == 0 {
		return corpus.Invalid("{Corpus}: none given")
	}
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return corpus.Invalid("{Corpus} %s does not exist", d)
		case err != nil:
			return corpus.Invalid("{Corpus} %s: %v", d, err)
		case !st.IsDir():
			return corpus.Invalid("{Corpus} %s is a file, not a corpus folder", d)
		}
		shards, err := ListShards(d)
		if err != nil {
			return corpus.Invalid("{Corpus} %s: %v", d, err)
		}
		if len(shards) > 0 {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(d, "manifest*.json")); len(m) == 0 {
			return corpus.Invalid("{Corpus} %s is not a corpus: no shard (%s) and no manifest", d, ShardGlob)
		}
	}
	return nil
}
