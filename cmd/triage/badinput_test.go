package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"triage/corpus/manifest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the table of docs/cli-errors.md from TestBadInput")

// cliErrorsDoc is the page that lists every bad input; its table is
// TestBadInput's table, rendered.
const cliErrorsDoc = "../../docs/cli-errors.md"

// Markers around the generated table of cliErrorsDoc.
const (
	tableStart = "<!-- table: go test ./cmd/triage -run TestBadInput -update-docs -->"
	tableEnd   = "<!-- end of table -->"
)

// badInput is one row of TestBadInput: a command line (placeholders in
// braces, see badInputFiles), its exit code, and a part of its message.
type badInputCase struct {
	args string
	code int
	msg  string
}

// badInputs is every bad input of issue 12's exit-code contract (and the
// older ones), grouped by command; docs/cli-errors.md shows them with the
// whole message.
var badInputs = []badInputCase{
	// Commands and arguments.
	{"nope", exitUsage, `unknown command "nope" for "triage"`},
	{"corpus nope", exitUsage, `unknown command "nope" for "triage corpus"`},
	{"corpus stat", exitUsage, "did you mean stats?"},
	{"tasks nope", exitUsage, `unknown command "nope" for "triage tasks"`},
	{"bench nope", exitUsage, `unknown command "nope" for "triage bench"`},
	{"help nope", exitUsage, "unknown help topic"},
	{"completion nope", exitUsage, `unknown command "nope" for "triage completion"`},
	{"--nope", exitUsage, "unknown flag: --nope"},
	{"eval --budget x", exitUsage, `invalid argument "x" for "--budget"`},
	{"tasks validate extra", exitUsage, "takes no arguments"},
	{"corpus build extra", exitUsage, "takes no arguments"},
	{"serve extra", exitUsage, "takes no arguments"},
	{"eval a b", exitUsage, "eval takes no arguments"},
	{"search --tasks {tasks} a b", exitUsage, "search takes no arguments"},
	{"corpus stats", exitUsage, "needs at least one corpus folder"},
	{"corpus merge --out {out}", exitUsage, "needs at least one corpus folder"},
	{"corpus merge {corpus}", exitUsage, "--out is required"},

	// Corpus folders and shards.
	{"corpus stats {missing}", exitUsage, "does not exist"},
	{"corpus stats {file}", exitUsage, "is a file, not a corpus folder"},
	{"corpus stats {empty-dir}", exitUsage, "is not a corpus"},
	{"corpus stats {garbage-shard}", exitUsage, "not a readable corpus shard"},
	{"corpus stats {truncated-shard}", exitUsage, "not a readable corpus shard"},
	{"corpus stats {damaged-shard}", exitUsage, "not a readable corpus shard"},
	{"corpus stats {corpus} {garbage-shard}", exitUsage, "not a readable corpus shard"},
	{"corpus merge --out {out} {missing}", exitUsage, "does not exist"},
	{"corpus merge --out {out} {file}", exitUsage, "is a file, not a corpus folder"},
	{"corpus merge --out {out} {empty-dir}", exitUsage, "is not a corpus"},
	{"corpus merge --out {out} {garbage-shard}", exitUsage, "not a readable corpus shard"},
	{"corpus merge --out {used-out} {corpus}", exitUsage, "already holds a corpus build"},
	{"corpus merge --out {used-out} {used-out}", exitUsage, "is also an input folder"},
	{"corpus merge --out {out} --rows-per-shard 0 {corpus}", exitUsage, "--rows-per-shard must be ≥ 1"},
	{"corpus replicate --out {out} --copies 0 {corpus}", exitUsage, "--copies >= 1"},
	{"corpus replicate --out {out} --copies 2 --split dev {corpus}", exitUsage, `--split "dev"`},
	{"corpus replicate --out {out} --copies 2 {empty-dir}", exitUsage, "is not a corpus"},

	// Task files.
	{"tasks validate", exitUsage, "--tasks is required"},
	{"tasks validate --tasks {missing}", exitUsage, "no such file"},
	{"tasks validate --tasks {empty-tasks}", exitUsage, "no task"},
	{"tasks validate --tasks bundled --workers -1", exitUsage, "--workers -1"},
	{"tasks validate --tasks bundled --test-timeout -1s", exitUsage, "--test-timeout -1s"},
	{"tasks validate --tasks bundled --test-timeout-clock sundial", exitUsage, `--test-timeout-clock "sundial"`},
	{"tasks inject --tasks {tasks}", exitUsage, "--out is required"},
	{"tasks inject --tasks {bad-lines} --out {out}", exitUsage, "{bad-lines}:2: bad JSON"},
	{"tasks inject --tasks {tasks} --out {tasks}", exitUsage, "is the --tasks file"},
	{"tasks inject --tasks {bad-lines} --out {bad-lines} --skip-bad-lines", exitUsage, "is the --tasks file"},
	{"tasks inject --tasks {tasks} --out {out} --roots 0", exitUsage, "--roots must be ≥ 1"},
	{"tasks inject --tasks {tasks} --out {out} --workers -1", exitUsage, "--workers -1"},
	{"tasks convert --in {tasks} --out {out}", exitUsage, `--from "": want "mbpp", "exercism" or "thealgorithms"`},
	{"tasks convert --from mbpp --out {out}", exitUsage, "--in and --out are required"},
	{"tasks convert --from mbpp --in {missing} --out {out}", exitUsage, "no such file"},
	{"tasks convert --from mbpp --in {tasks} --out {tasks}", exitUsage, "is the --in file"},
	{"tasks convert --from mbpp --in {tasks} --out {out}", exitUsage, "{tasks}: mbpp line 1: bad JSON"},
	{"tasks convert --from mbpp --in {tasks} --out {out} --workers -1", exitUsage, "--workers -1"},

	// corpus build.
	{"prior build --out {out}", exitUsage, "--sources and --out are required"},
	{"prior build --sources {missing} --out {out}", exitUsage, "no such file"},
	{"prior build --sources {file} --out {out}", exitUsage, "code prior sources"},
	{"corpus build --tasks {missing} --out {out}", exitUsage, "no such file"},
	{"corpus build --out {out}", exitUsage, "--tasks is required"},
	{"corpus build --tasks {bad-lines} --out {out}", exitUsage, "{bad-lines}:2: bad JSON"},
	{"corpus build --tasks {empty-tasks} --out {out}", exitUsage, "{empty-tasks}: no task"},
	{"corpus build --tasks {tasks}", exitUsage, "--out is required"},
	{"corpus build --tasks {tasks} --split dev --out {out}", exitUsage, "--split: unknown split \"dev\""},
	{"corpus build --tasks {tasks} --out {out} --shard 3/2", exitUsage, "--shard"},
	{"corpus build --tasks {tasks} --out {out} --shard auto", exitUsage, "neither JOB_COMPLETION_INDEX"},
	{"corpus build --tasks {tasks} --out {out} --shard auto/0", exitUsage, "auto/n with n ≥ 1"},
	{"corpus build --tasks {tasks} --out {out} --k 0", exitUsage, "must be ≥ 1"},
	{"corpus build --tasks {tasks} --out {out} --workers -1", exitUsage, "--workers -1"},
	{"corpus build --tasks {tasks} --out {out} --proposer gpt", exitUsage, `--proposer "gpt"`},
	{"corpus build --tasks {tasks} --out {out} --proposer openai --model m", exitUsage, "base URL"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-floor 0s", exitUsage, "--test-timeout-floor"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-floor 20s", exitUsage, "--test-timeout-floor"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout -1s", exitUsage, "--test-timeout -1s"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock sundial", exitUsage, `--test-timeout-clock "sundial"`},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-wall-factor 0.5", exitUsage, "--test-timeout-floor/-factor/-cap/-harness-factor/-harness-floor/-program-floor/-program-harness-factor/-program-serve-factor/-wall-floor/-wall-factor"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-harness-factor 0.5", exitUsage, "harness factor 0.5"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-harness-factor 0 --test-timeout-harness-floor 1s", exitUsage, "harness floor 1s without a harness factor"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock wall --test-timeout-harness-factor 2", exitUsage, "--test-timeout-harness-factor: only with --test-timeout-clock cpu"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock wall --test-timeout-wall-floor 5s", exitUsage, "only with --test-timeout-clock cpu"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-program-floor -1s", exitUsage, "program floor -1s < 0"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock wall --test-timeout-program-floor 1s", exitUsage, "--test-timeout-program-floor: only with --test-timeout-clock cpu"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-harness-factor 0 --test-timeout-program-floor 1s", exitUsage, "a program floor needs"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-program-harness-factor -1", exitUsage, "program floor's harness factor -1 must be 0 (a fixed floor) or > 0"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock wall --test-timeout-program-harness-factor 2", exitUsage, "--test-timeout-program-harness-factor: only with --test-timeout-clock cpu"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-program-serve-factor 0.5", exitUsage, "program serve factor 0.5 must be 0 (the factor for all) or ≥ 1"},
	{"corpus build --tasks {tasks} --out {out} --test-timeout-clock wall --test-timeout-program-serve-factor 2", exitUsage, "--test-timeout-program-serve-factor: only with --test-timeout-clock cpu"},
	{"corpus build --tasks {tasks} --out {out} --proposer openai --model m --base-url http://127.0.0.1:1/v1", exitFailure, "corpus build"},

	// eval, tune, train, cv.
	{"eval", exitUsage, "--corpus is required"},
	{"eval --corpus {missing}", exitUsage, "does not exist"},
	{"eval --corpus {empty-dir}", exitUsage, "is not a corpus"},
	{"eval --corpus {garbage-shard} --policies bfs", exitUsage, "not a readable corpus shard"},
	{"eval --corpus {corpus} --split dev", exitUsage, `--split "dev"`},
	{"eval --corpus {corpus} --policies nope", exitUsage, `unknown policy "nope"`},
	{"eval --corpus {corpus} --policies bfs,bfs", exitUsage, "given twice"},
	{"eval --corpus {corpus} --policies bfs,uct --paired learned", exitUsage, "--paired learned: not among --policies"},
	{"eval --corpus {corpus} --policies bfs --score foo", exitUsage, `--score "foo"`},
	{"eval --corpus {corpus} --policies bfs --budgets 100000000", exitUsage, "above the largest budget"},
	{"eval --corpus {corpus} --policies bfs --budgets 0", exitUsage, "not a positive integer"},
	{"eval --corpus {corpus} --policies bfs --budget 100000000", exitUsage, "--budget 100000000"},
	{"eval --corpus {corpus} --policies bfs --workers -1", exitUsage, "--workers -1"},
	{"eval --corpus {corpus} --policies bfs --params {missing}", exitUsage, "--params"},
	{"tune --corpus {corpus} --split test --policy rex --grid C=1 --out {out}", exitUsage, "never on test"},
	{"tune --corpus {corpus} --policy nope --grid C=1 --out {out}", exitUsage, `unknown policy "nope"`},
	{"tune --corpus {corpus} --policy rex --grid C=1 --metric foo --out {out}", exitUsage, `--metric "foo"`},
	{"tune --corpus {corpus} --policy rex --grid C=1 --workers -1 --out {out}", exitUsage, "--workers -1"},
	{"tune --corpus {garbage-shard} --policy rex --grid C=1 --out {out}", exitUsage, "not a readable corpus shard"},
	{"train --corpus {corpus}", exitUsage, "--out is required"},
	{"train --corpus {empty-dir} --out {out}", exitUsage, "is not a corpus"},
	{"train --corpus {corpus} --out {out} --arch foo", exitUsage, "--arch foo: want small, 0.6b or a Qwen3 config.json"},
	{"train --corpus {corpus} --out {out} --dtype foo", exitUsage, `dtype "foo"`},
	{"train --corpus {corpus} --out {out} --arch 0.6b --no-words", exitUsage, "--no-program, --no-words, --siblings and --prior are inputs of the small architecture"},
	{"train --corpus {corpus} --out {out} --backend foo", exitUsage, `backend "foo"`},
	{"cv --folds 1", exitUsage, "--folds must be ≥ 2"},
	{"cv --budgets 100000000", exitUsage, "above the largest budget"},
	{"cv --lodo --corpus {corpus} --out {out}", exitUsage, "with --lodo the first folder needs a dataset name"},
	{"cv --lodo --corpus a={corpus} --out {out}", exitUsage, "--lodo needs at least two datasets"},
	{"cv --lodo --corpus a={corpus} --corpus a={corpus} --out {out}", exitUsage, "dataset a given twice"},
	{"cv --lodo --corpus a={corpus} --corpus b={corpus} --out {out} --train-seeds 0", exitUsage, "--train-seeds"},

	// search.
	{"search --policy bfs", exitUsage, "--tasks is required"},
	{"search --tasks {bad-lines} --policy bfs", exitUsage, "{bad-lines}:2: bad JSON"},
	{"search --tasks {tasks} --split dev", exitUsage, `--split "dev"`},
	{"search --tasks {tasks} --budget 0", exitUsage, "--budget"},
	{"search --tasks {tasks} --budget 100000000", exitUsage, "above the largest budget"},
	{"search --tasks {tasks} --test-timeout -1s", exitUsage, "--test-timeout -1s"},
	{"search --tasks {tasks} --test-timeout-clock sundial", exitUsage, `--test-timeout-clock "sundial"`},
	{"search --tasks {tasks} --workers -1", exitUsage, "--workers -1"},
	{"search --tasks {tasks} --method mcts", exitUsage, `--method "mcts"`},
	{"search --tasks {tasks} --policy greedy", exitUsage, `--policy: unknown policy "greedy"`},
	{"search --tasks {tasks} --policy bfs --proposer gpt", exitUsage, `--proposer "gpt"`},
	{"search --tasks {tasks} --policy bfs --out {used-out}", exitUsage, "already holds a manifest"},

	// bench.
	{"bench score --modes foo", exitUsage, `--modes: unknown value "foo"`},
	{"bench score --arch foo", exitUsage, `--arch "foo"`},
	{"bench score --dtype f16", exitUsage, `--dtype "f16"`},
	{"bench score --rows 0", exitUsage, "must be positive"},
	{"bench train --arch foo", exitUsage, `--arch "foo"`},
	{"bench train --batch 0", exitUsage, "not a positive integer"},
	{"bench sandbox --runs 0", exitUsage, "--runs 0"},
	{"bench sandbox --test-timeout 0", exitUsage, "--test-timeout 0s"},
	{"bench sandbox --timeout 0", exitUsage, "--test-timeout 0s"},
	{"bench sandbox --workers -1", exitUsage, "--workers -1"},
	{"bench tokenizer --runs 0", exitUsage, "must be positive"},
	{"bench tokenizer --tokenizer {missing}", exitUsage, "--tokenizer"},
	{"bench serve --stand-in 0 --modes batch,foo", exitUsage, `--modes: unknown value "foo"`},
	{"bench serve --stand-in 0 --request-timeout 0s", exitUsage, "--request-timeout must be positive"},
	{"bench serve --stand-in 0 --clients 0", exitUsage, "must be positive"},
}

// badInputFiles makes the inputs the placeholders of badInputs name, in
// dir, and returns them by placeholder.
func badInputFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	write := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	task := `{"task_id":"sq","question":"square","solution":"def f(x):\n    return x * x\n","test":"from solution import f\n\ndef test_a():\n    assert f(2) == 4\n"}` + "\n"
	shard, err := os.ReadFile(filepath.Join("testdata", "golden", manifest.ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty-dir")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	write("empty-dir/notes.txt", "no shard here")
	return map[string]string{
		"{missing}":         filepath.Join(dir, "missing"),
		"{file}":            write("file", "x"),
		"{empty-dir}":       empty,
		"{garbage-shard}":   filepath.Dir(write("garbage-shard/"+manifest.ShardFileName(0), "garbage bytes, not Parquet")),
		"{truncated-shard}": filepath.Dir(write("truncated-shard/"+manifest.ShardFileName(0), string(shard[:len(shard)/2]))),
		"{damaged-shard}":   filepath.Dir(write("damaged-shard/"+manifest.ShardFileName(0), damage(shard))),
		"{corpus}":          filepath.Join("testdata", "golden"),
		"{tasks}":           write("tasks.jsonl", task),
		"{bad-lines}":       write("bad-lines.jsonl", task+"{not json\n"),
		"{empty-tasks}":     write("empty-tasks.jsonl", ""),
		"{out}":             filepath.Join(dir, "out"),
		"{used-out}":        filepath.Dir(write("used-out/manifest.json", `{"schema":"triage-corpus/1"}`)),
	}
}

// damage returns a copy of a shard with bytes of its first half (data
// pages, after the leading magic) overwritten.
func damage(shard []byte) string {
	out := []byte(string(shard))
	for i := 8; i < len(out)/2; i += 97 {
		out[i] ^= 0x5a
	}
	return string(out)
}

// TestBadInput runs every bad input of badInputs: each exits with its code
// and a message holding its part, no input file is changed, and no output
// is left behind. docs/cli-errors.md must hold the table of the results
// (-update-docs rewrites it).
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	files := badInputFiles(t, dir)
	before := snapshot(t, dir)
	var rows []string
	for _, tc := range badInputs {
		args := strings.Fields(tc.args)
		for i, a := range args {
			for ph, p := range files {
				a = strings.ReplaceAll(a, ph, p)
			}
			args[i] = a
		}
		code, err := runCLIErr(t, args...)
		msg := ""
		if err != nil {
			msg = unplace(err.Error(), files)
		}
		if code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("triage %s: exit %d, %q; want exit %d with %q", tc.args, code, msg, tc.code, tc.msg)
		}
		rows = append(rows, fmt.Sprintf("| `triage %s` | %d | %s |", tc.args, code, mdCell(msg)))
		if after := snapshot(t, dir); after != before {
			t.Fatalf("triage %s changed the input folder:\nbefore\n%s\nafter\n%s", tc.args, before, after)
		}
	}
	table := strings.Join(append([]string{"| input | exit | message |", "|---|---|---|"}, rows...), "\n")
	checkDocTable(t, table)
}

// unplace writes the placeholders back into msg in place of the paths.
func unplace(msg string, files map[string]string) string {
	phs := make([]string, 0, len(files))
	for ph := range files {
		phs = append(phs, ph)
	}
	// Longer paths first: a folder's path is a prefix of its files'.
	sort.Slice(phs, func(i, j int) bool { return len(files[phs[i]]) > len(files[phs[j]]) })
	for _, ph := range phs {
		msg = strings.ReplaceAll(msg, files[ph], ph)
	}
	return msg
}

// mdCell makes s one Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// snapshot lists every file under dir with its size and mode.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v\n", strings.TrimPrefix(p, dir), fi.Size(), fi.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkDocTable compares the table of docs/cli-errors.md with table, or
// writes it there with -update-docs.
func checkDocTable(t *testing.T, table string) {
	t.Helper()
	doc, err := os.ReadFile(cliErrorsDoc)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), tableStart+"\n")
	old, tail, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no %q ... %q markers", cliErrorsDoc, tableStart, tableEnd)
	}
	if *updateDocs {
		if err := os.WriteFile(cliErrorsDoc, []byte(head+tableStart+"\n"+table+"\n"+tableEnd+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if strings.TrimSpace(old) != table {
		t.Errorf("%s is out of date: run go test ./cmd/triage -run TestBadInput -update-docs\nwant\n%s", cliErrorsDoc, table)
	}
}

// outsidePath matches a file path outside the repository in help text.
var outsidePath = regexp.MustCompile(`(^|[\s'"=(:])(/(tmp|work|data|home|root|etc|var|mnt|opt|srv|shared)\b|~/|\.\./)`)

// TestHelpExamples: every command's help has examples, and no help text
// names a path outside the repository (cobra's completion commands, whose
// install instructions name shell folders, aside).
func TestHelpExamples(t *testing.T) {
	root := newCLI()
	root.InitDefaultHelpCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: no examples in --help", c.CommandPath())
		}
		if !strings.HasPrefix(c.CommandPath(), "triage completion") {
			text := c.Use + "\n" + c.Short + "\n" + c.Long + "\n" + c.Example + "\n" + c.LocalFlags().FlagUsages()
			for _, line := range strings.Split(text, "\n") {
				if outsidePath.MatchString(line) {
					t.Errorf("%s: help names a path outside the repository: %q", c.CommandPath(), line)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
