// Command gen assembles the bundled task set from its authoring folders into
// one JSONL file (see bundled.Assemble). Splits already in the output file
// are kept, so adding tasks never moves an old task to another split.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"triage/corpus"
	"triage/corpus/bundled"
)

func main() {
	src := flag.String("src", "src", "folder of task folders")
	out := flag.String("out", "tasks.jsonl", "output JSONL")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src, out string) error {
	old := map[string]string{}
	if f, err := os.Open(out); err == nil {
		tasks, _, err := corpus.ReadTasks(f, out)
		f.Close()
		if err != nil {
			return err
		}
		for _, t := range tasks {
			old[t.ID] = t.Split
		}
	}
	tasks, err := bundled.Assemble(src, old)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := corpus.WriteTasks(&buf, tasks); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
