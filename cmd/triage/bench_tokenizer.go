package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"triage/model/tokenizer"
)

func newBenchTokenizerCmd() *cobra.Command {
	var (
		size    int
		minTime time.Duration
		runs    int
		path    string
		files   []string
	)
	c := &cobra.Command{
		Use:   "tokenizer",
		Short: "Throughput of the pure-Go BPE tokenizer (MB/s) and time of pathological inputs",
		Long: `tokenizer encodes about 1 MB of Python code and pytest tracebacks (generated,
deterministic; or the --file texts) with the embedded Qwen3 tokenizer (or
--tokenizer), once with an empty merge cache (cold) and then repeatedly
(warm), on one goroutine, and times five long adversarial inputs (50k spaces,
letters, newlines; 200k random base64; 33k random CJK characters), best of
--runs.
Targets: >= 5 MB/s, each pathological input under 100 ms. Times are wall
clock: on a loaded machine they include other processes' load.`,
		Example: `  triage bench tokenizer
  triage bench tokenizer --file corpus/bundled/tasks.jsonl --runs 5 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if size <= 0 || runs <= 0 || minTime < 0 {
				return badInput("--size and --runs must be positive, --min-time not negative")
			}
			tok, err := loadBenchTokenizer(path)
			if err != nil {
				return err
			}
			var text strings.Builder
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					return badInput("--file: %v", err)
				}
				text.Write(data)
			}
			res, err := tokenizer.Bench(tok, tokenizer.BenchOptions{Text: text.String(), Size: size, MinTime: minTime, Runs: runs})
			if err != nil {
				return fmt.Errorf("bench tokenizer: %w", err)
			}
			return printResult(cmd, res, res.WriteText)
		},
	}
	c.Flags().IntVar(&size, "size", 1<<20, "bytes of generated code and tracebacks (ignored with --file)")
	c.Flags().DurationVar(&minTime, "min-time", time.Second, "measure warm throughput at least this long")
	c.Flags().IntVar(&runs, "runs", 3, "times each pathological input is encoded, ≥ 1 (fastest and slowest shown)")
	c.Flags().StringVar(&path, "tokenizer", "", "tokenizer.json (plain, .zst or .gz); default: embedded Qwen3")
	c.Flags().StringArrayVar(&files, "file", nil, "text file to encode instead of the generated corpus (repeatable)")
	return c
}

// loadBenchTokenizer returns the tokenizer at path, or the embedded Qwen3
// one when path is empty. A file that cannot be read or parsed is bad input.
func loadBenchTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if path == "" {
		tok, err := tokenizer.Qwen3()
		if err != nil {
			return nil, fmt.Errorf("bench tokenizer: %w", err)
		}
		return tok, nil
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		return nil, badInput("--tokenizer: %v", err)
	}
	return tok, nil
}
