package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"triage/corpus"
)

// checkCorpusDirs returns bad input (exit 2) unless every folder of dirs
// holds a corpus: at least one shard or one manifest (a build that made no
// tree yet has a manifest alone). what names the input in the message,
// e.g. "corpus folder" or "--corpus".
func checkCorpusDirs(what string, dirs []string) error {
	if len(dirs) == 0 {
		return badInput("%s: none given", what)
	}
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return badInput("%s %s does not exist", what, d)
		case err != nil:
			return badInput("%s %s: %v", what, d, err)
		case !st.IsDir():
			return badInput("%s %s is a file, not a corpus folder", what, d)
		}
		shards, err := corpus.ListShards(d)
		if err != nil {
			return badInput("%s %s: %v", what, d, err)
		}
		if len(shards) > 0 {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(d, "manifest*.json")); len(m) == 0 {
			return badInput("%s %s is not a corpus: no shard (%s) and no manifest", what, d, corpus.ShardGlob)
		}
	}
	return nil
}

// corpusFolderArgs is the argument check of commands that read corpus
// folders given as arguments.
func corpusFolderArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return badInput("%s needs at least one corpus folder", c.CommandPath())
	}
	return nil
}

// checkSplit returns bad input unless split is one of the corpus splits or
// one of extra (e.g. "all").
func checkSplit(flag, split string, extra ...string) error {
	want := append([]string{corpus.SplitTrain, corpus.SplitVal, corpus.SplitTest}, extra...)
	if slices.Contains(want, split) {
		return nil
	}
	return badInput("%s %q: want %s", flag, split, strings.Join(want, ", "))
}

// removeOnFailure returns a function that removes the output folder out
// when the command failed (err != nil) and out did not exist before: a
// refused or failed merge leaves nothing behind.
func removeOnFailure(out string) func(err error) {
	_, statErr := os.Stat(out)
	existed := !errors.Is(statErr, fs.ErrNotExist)
	return func(err error) {
		if err != nil && !existed {
			_ = os.RemoveAll(out)
		}
	}
}
