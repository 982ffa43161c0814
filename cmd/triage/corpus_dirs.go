package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
)

// corpusFolderArgs is the argument check of commands that read corpus
// folders given as arguments.
func corpusFolderArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return badInput("%s needs at least one corpus folder", c.CommandPath())
	}
	return nil
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
