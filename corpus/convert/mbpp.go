package convert

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/limits"
)

// MBPP (Austin et al. 2021, "Program Synthesis with Large Language
// Models"): 974 crowd-sourced Python tasks, each a one-sentence question, a
// reference solution and three asserts, some with challenge asserts.
const (
	// MBPPSource is the source of converted MBPP tasks, and the task-spec
	// word that names the shipped set.
	MBPPSource = "mbpp"
	// MBPPLicense is the dataset's licence, recorded in every task.
	MBPPLicense = "CC-BY-4.0"
	// MBPPOrigin is where the original file lives.
	MBPPOrigin = "github.com/google-research/google-research, mbpp/mbpp.jsonl"
	// MBPPSHA256 is the sha256 of the original mbpp.jsonl (563,537 bytes,
	// google-research commit 2251e8c) that the shipped tasks come from.
	MBPPSHA256 = "0b7004a79cd62d9ec7ecdd5a6e5f0ef1210ff00b286df3c5d5b57bf38c58e19a"
)

// MBPPProblem is one row of mbpp.jsonl, its text with line endings
// normalised (\r\n and a lone \r become \n; tabs stay).
type MBPPProblem struct {
	ID         int
	Text       string
	Code       string
	Setup      string   // test_setup_code: module-level code the asserts need
	Tests      []string // test_list
	Challenges []string // challenge_test_list
}

// mbppRow is the wire form of one line of mbpp.jsonl.
type mbppRow struct {
	Text       *string  `json:"text"`
	Code       *string  `json:"code"`
	TaskID     *int     `json:"task_id"`
	Setup      string   `json:"test_setup_code"`
	Tests      []string `json:"test_list"`
	Challenges []string `json:"challenge_test_list"`
}

// ReadMBPP parses mbpp.jsonl. The file is a fixed dataset, so the first
// malformed line (bad JSON, a missing field, an empty assert, a task id
// outside 1–974 or seen before) is an error naming it; blank lines are
// skipped.
func ReadMBPP(r io.Reader) ([]MBPPProblem, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []MBPPProblem
	seen := map[int]int{}
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := corpus.ReadLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return out, fmt.Errorf("read mbpp line %d: %w", lineNo, err)
		}
		if tooLong {
			return out, fmt.Errorf("mbpp line %d: longer than %d bytes", lineNo, corpus.MaxTaskLine)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p, perr := parseMBPPLine(line)
			if perr == nil {
				if prev, dup := seen[p.ID]; dup {
					perr = fmt.Errorf("duplicate task_id %d (first on line %d)", p.ID, prev)
				}
			}
			if perr != nil {
				return out, fmt.Errorf("mbpp line %d: %w", lineNo, perr)
			}
			seen[p.ID] = lineNo
			out = append(out, p)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
	}
}

func parseMBPPLine(line []byte) (MBPPProblem, error) {
	var w mbppRow
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&w); err != nil {
		return MBPPProblem{}, fmt.Errorf("bad JSON: %w", err)
	}
	if dec.More() {
		return MBPPProblem{}, errors.New("bad JSON: more than one value on the line")
	}
	switch {
	case w.TaskID == nil:
		return MBPPProblem{}, errors.New("no task_id")
	case w.Text == nil || strings.TrimSpace(*w.Text) == "":
		return MBPPProblem{}, fmt.Errorf("task %d: no text", *w.TaskID)
	case w.Code == nil || strings.TrimSpace(*w.Code) == "":
		return MBPPProblem{}, fmt.Errorf("task %d: no code", *w.TaskID)
	case len(w.Tests) == 0:
		return MBPPProblem{}, fmt.Errorf("task %d: no test_list", *w.TaskID)
	}
	if MBPPSplit(*w.TaskID) == "" {
		return MBPPProblem{}, fmt.Errorf("task_id %d outside MBPP's 1–974", *w.TaskID)
	}
	p := MBPPProblem{ID: *w.TaskID, Text: normalizeNewlines(strings.TrimSpace(*w.Text)),
		Code: normalizeNewlines(*w.Code), Setup: normalizeNewlines(w.Setup)}
	for _, l := range []struct {
		name string
		in   []string
		out  *[]string
	}{{"test_list", w.Tests, &p.Tests}, {"challenge_test_list", w.Challenges, &p.Challenges}} {
		for i, a := range l.in {
			a = strings.TrimSpace(normalizeNewlines(a))
			if !strings.HasPrefix(a, "assert") {
				return MBPPProblem{}, fmt.Errorf("task %d: %s[%d] is not an assert: %.40q", p.ID, l.name, i, a)
			}
			*l.out = append(*l.out, a)
		}
	}
	return p, nil
}

// normalizeNewlines turns \r\n and a lone \r into \n.
func normalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// MBPPSplit is MBPP's own split of a task id: 1–10 (the few-shot prompt)
// and 601–974 train, 511–600 val, 11–510 test; "" outside 1–974.
func MBPPSplit(id int) string {
	switch {
	case id >= 1 && id <= 10, id >= 601 && id <= 974:
		return corpus.SplitTrain
	case id >= 511 && id <= 600:
		return corpus.SplitVal
	case id >= 11 && id <= 510:
		return corpus.SplitTest
	}
	return ""
}

// MBPPTaskID is the task id of MBPP task n: "mbpp_" and n in three digits,
// so ids sort in MBPP's order.
func MBPPTaskID(n int) string { return fmt.Sprintf("mbpp_%03d", n) }

// topLevelDef matches the functions a solution defines at module level;
// topLevelName its functions, classes and assigned names.
var (
	topLevelDef  = regexp.MustCompile(`(?m)^def\s+([A-Za-z_]\w*)\s*\(`)
	topLevelName = regexp.MustCompile(`(?m)^(?:(?:def|class)\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*=[^=])`)
)

// EntryPoint is the function the asserts test: the first module-level
// function of the solution that the first assert calls, else one any assert
// calls, else the last one defined ("" when the solution defines none).
func (p *MBPPProblem) EntryPoint() string {
	var defs []string
	for _, m := range topLevelDef.FindAllStringSubmatch(p.Code, -1) {
		defs = append(defs, m[1])
	}
	for _, a := range append([]string{p.Tests[0]}, p.Tests...) {
		best, at := "", -1
		for _, d := range defs {
			if i := callIndex(a, d); i >= 0 && (at < 0 || i < at) {
				best, at = d, i
			}
		}
		if best != "" {
			return best
		}
	}
	if len(defs) > 0 {
		return defs[len(defs)-1]
	}
	return ""
}

// callIndex returns where s first calls name (name, optional spaces, "(",
// not preceded by an identifier character or a dot), or -1.
func callIndex(s, name string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		off = i + len(name)
		if i > 0 && (isASCIIIdentByte(s[i-1]) || s[i-1] == '.') {
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(s[off:], " \t"), "(") {
			return i
		}
	}
}

// isASCIIIdentByte reports whether c may be part of an ASCII identifier.
func isASCIIIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// mbppTestName names the pytest function of assert i (from 1) of the
// test_list, or of the challenge_test_list.
func mbppTestName(challenge bool, i int) string {
	if challenge {
		return fmt.Sprintf("test_challenge_%d", i)
	}
	return fmt.Sprintf("test_%d", i)
}

// Task converts the problem into a task whose test file has one pytest
// function per assert of test_list and of the challenge asserts whose
// positions (from 0) are in challenges. The test file imports everything
// from solution (the asserts may use its helpers, classes and imports; a
// star import leaves out names that start with "_", so those are imported
// by name), marks the solution's functions named test* as no tests (or
// pytest would collect them), and runs test_setup_code at module level;
// the question is MBPP's text and its three asserts, as in the paper's
// prompt.
func (p *MBPPProblem) Task(challenges []int) corpus.Task {
	var b strings.Builder
	b.WriteString("from solution import *\n")
	var private, testLike []string
	for _, m := range topLevelName.FindAllStringSubmatch(p.Code, -1) {
		def, assigned := m[1], m[2]
		switch n := def + assigned; {
		case strings.HasPrefix(n, "_") && !slices.Contains(private, n):
			private = append(private, n)
		case def != "" && strings.HasPrefix(strings.ToLower(def), "test") && !slices.Contains(testLike, def):
			testLike = append(testLike, def)
		}
	}
	if len(private) > 0 {
		b.WriteString("from solution import " + strings.Join(private, ", ") + "\n")
	}
	if len(testLike) > 0 {
		b.WriteString("\n# MBPP's solution names these test*: they are not tests.\n")
		for _, n := range testLike {
			b.WriteString(n + ".__test__ = False\n")
		}
	}
	if s := strings.TrimSpace(p.Setup); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	add := func(name, assert string) {
		fmt.Fprintf(&b, "\n\ndef %s():\n", name)
		for _, l := range strings.Split(assert, "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	for i, a := range p.Tests {
		add(mbppTestName(false, i+1), a)
	}
	for _, i := range challenges {
		add(mbppTestName(true, i+1), p.Challenges[i])
	}
	code := p.Code
	if !strings.HasSuffix(code, "\n") {
		code += "\n"
	}
	q := p.Text + "\n\nYour code should pass these tests:\n\n```python\n" + strings.Join(p.Tests, "\n") + "\n```\n"
	return corpus.Task{ID: MBPPTaskID(p.ID), Question: q, Solution: code, Test: b.String(), EntryPoint: p.EntryPoint(),
		Split: MBPPSplit(p.ID), Source: MBPPSource, License: MBPPLicense}
}

// MBPPOptions configure ConvertMBPP.
type MBPPOptions struct {
	// Workers is the number of tasks run at once (at least 1).
	Workers int
	// Limits time each reference as `tasks validate` does.
	Limits limits.TimeLimits
	// Progress, if set, is called as tasks are checked.
	Progress func(done, total int)
}

// MBPPReport says what ConvertMBPP kept and left out.
type MBPPReport struct {
	Rows   int            `json:"rows"`
	Tasks  int            `json:"tasks"`
	Splits map[string]int `json:"splits"`
	Tests  int            `json:"tests"`
	// Challenges counts the challenge asserts of the tasks; the kept ones
	// are those the reference passes (ChallengesDropped lists the others).
	Challenges        int            `json:"challenge_tests"`
	ChallengesKept    int            `json:"challenge_tests_kept"`
	ChallengesDropped []MBPPDropped  `json:"challenge_tests_dropped"`
	Dropped           []MBPPDropped  `json:"dropped_tasks"`
	Checks            map[string]int `json:"run_statuses"`
}

// MBPPDropped is a task, or one of its challenge asserts, left out, and why.
type MBPPDropped struct {
	TaskID string `json:"task_id"`
	Test   string `json:"test,omitempty"`
	Reason string `json:"reason"`
}

// ConvertMBPP turns MBPP's problems into tasks and keeps what the sandbox
// confirms: each task's challenge asserts are run against its reference
// once, and only those it passes are kept; then every task goes through the
// checks `tasks validate` runs (CheckTasks), and a task that fails them is
// left out with the reason. Tasks come out in MBPP's order.
func ConvertMBPP(ctx context.Context, exec corpus.Executor, problems []MBPPProblem, o MBPPOptions) ([]corpus.Task, MBPPReport, error) {
	rep := MBPPReport{Rows: len(problems), Splits: map[string]int{}, Checks: map[string]int{},
		ChallengesDropped: []MBPPDropped{}, Dropped: []MBPPDropped{}}
	kept := make([][]int, len(problems))
	dropped := make([][]MBPPDropped, len(problems))
	var mu sync.Mutex
	err := corpus.ForEach(ctx, len(problems), o.Workers, func(i int) error {
		p := &problems[i]
		if len(p.Challenges) == 0 {
			return nil
		}
		k, d, err := passingChallenges(ctx, exec, p, o.Limits)
		mu.Lock()
		kept[i], dropped[i] = k, d
		mu.Unlock()
		return err
	})
	if err != nil {
		return nil, rep, fmt.Errorf("convert mbpp: %w", err)
	}
	tasks := make([]corpus.Task, len(problems))
	for i := range problems {
		tasks[i] = problems[i].Task(kept[i])
		rep.Challenges += len(problems[i].Challenges)
		rep.ChallengesKept += len(kept[i])
		rep.ChallengesDropped = append(rep.ChallengesDropped, dropped[i]...)
	}
	checks, err := build.CheckTasks(ctx, exec, tasks, build.CheckOptions{ReferenceRuns: 1, Limits: o.Limits}, o.Workers, o.Progress)
	if err != nil {
		return nil, rep, fmt.Errorf("convert mbpp: %w", err)
	}
	var out []corpus.Task
	for i, c := range checks {
		for s, n := range c.Statuses {
			rep.Checks[string(s)] += n
		}
		if !c.Valid() {
			rep.Dropped = append(rep.Dropped, MBPPDropped{TaskID: c.TaskID, Reason: c.Reason()})
			continue
		}
		out = append(out, tasks[i])
		rep.Splits[tasks[i].Split]++
		rep.Tests += c.Tests
	}
	rep.Tasks = len(out)
	return out, rep, nil
}

// passingChallenges runs p's reference against its base and challenge
// asserts and returns the positions of the challenge asserts that pass,
// and the others with the reason. A run that does not complete keeps none.
func passingChallenges(ctx context.Context, exec corpus.Executor, p *MBPPProblem, limits limits.TimeLimits) ([]int, []MBPPDropped, error) {
	all := make([]int, len(p.Challenges))
	for i := range all {
		all[i] = i
	}
	t := p.Task(all)
	ex, err := corpus.RunWith(ctx, exec, t.Solution, t.Test, limits.Measure())
	if err != nil {
		return nil, nil, fmt.Errorf("task %s: run challenge tests: %w", t.ID, err)
	}
	passed := map[string]bool{}
	message := map[string]string{}
	if ex.Status == corpus.StatusOK {
		for _, tr := range ex.Tests {
			name := tr.Name[strings.LastIndex(tr.Name, ":")+1:] // "file::name" or "name"
			first, _, _ := strings.Cut(tr.Message, "\n")
			passed[name], message[name] = tr.Passed, first
		}
	}
	var keep []int
	var drop []MBPPDropped
	for i := range p.Challenges {
		name := mbppTestName(true, i+1)
		switch ok, ran := passed[name]; {
		case ok:
			keep = append(keep, i)
		case ex.Status != corpus.StatusOK:
			drop = append(drop, MBPPDropped{TaskID: t.ID, Test: name, Reason: "the run did not complete: " + corpus.Summarize(ex)})
		case !ran:
			drop = append(drop, MBPPDropped{TaskID: t.ID, Test: name, Reason: "not collected"})
		default:
			drop = append(drop, MBPPDropped{TaskID: t.ID, Test: name, Reason: "the reference fails it: " + message[name]})
		}
	}
	sort.Ints(keep)
	return keep, drop, nil
}
