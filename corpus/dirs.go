package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckDirs returns bad input (exit 2) unless every folder of dirs
// holds a corpus: at least one shard or one manifest (a build that made no
// tree yet has a manifest alone). what names the input in the message,
// e.g. "corpus folder" or "--corpus".
func CheckDirs(what string, dirs []string) error {
	if len(dirs) == 0 {
		return BadInput("%s: none given", what)
	}
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return BadInput("%s %s does not exist", what, d)
		case err != nil:
			return BadInput("%s %s: %v", what, d, err)
		case !st.IsDir():
			return BadInput("%s %s is a file, not a corpus folder", what, d)
		}
		shards, err := ListShards(d)
		if err != nil {
			return BadInput("%s %s: %v", what, d, err)
		}
		if len(shards) > 0 {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(d, "manifest*.json")); len(m) == 0 {
			return BadInput("%s %s is not a corpus: no shard (%s) and no manifest", what, d, ShardGlob)
		}
	}
	return nil
}
