package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"
)

// MaxTaskLine bounds one JSONL line; KodCode rows are a few kB, and a line
// beyond this is reported as malformed rather than read into memory.
const MaxTaskLine = 16 << 20

// TaskLineError reports one malformed line of a task file. The rest of the
// file still loads.
type TaskLineError struct {
	File string
	Line int
	Err  error
}

func (e TaskLineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e TaskLineError) Unwrap() error { return e.Err }

// taskLine is the wire form: a superset of KodCode-V1's row. KodCode names the
// id question_id; unknown fields are ignored.
type taskLine struct {
	TaskID     *string  `json:"task_id"`
	QuestionID *string  `json:"question_id"`
	Question   string   `json:"question"`
	Solution   string   `json:"solution"`
	Test       string   `json:"test"`
	EntryPoint string   `json:"entry_point"`
	Roots      []string `json:"roots"`
	Split      string   `json:"split"`
	Category   string   `json:"category"`
	Source     string   `json:"source"`
	License    string   `json:"license"`
	Origin     string   `json:"origin"`
}

// LoadTasks reads a task JSONL file. See ReadTasks.
func LoadTasks(path string) ([]Task, []TaskLineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load tasks: %w", err)
	}
	defer f.Close()
	return ReadTasks(f, path)
}

// ReadTasks parses task JSONL from r; name labels errors. Blank lines are
// skipped. A malformed line (bad JSON, missing fields, a duplicate id, an
// unknown split) is returned in the second result and the rest still load;
// the error result is for failures to read r at all.
func ReadTasks(r io.Reader, name string) ([]Task, []TaskLineError, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var (
		tasks []Task
		bad   []TaskLineError
		seen  = map[string]int{}
	)
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := ReadLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return tasks, bad, fmt.Errorf("read %s line %d: %w", name, lineNo, err)
		}
		if tooLong {
			bad = append(bad, TaskLineError{name, lineNo, fmt.Errorf("line longer than %d bytes", MaxTaskLine)})
		} else if len(bytes.TrimSpace(line)) > 0 {
			t, perr := parseTaskLine(line)
			if perr == nil {
				if prev, dup := seen[t.ID]; dup {
					perr = fmt.Errorf("duplicate task_id %q (first on line %d)", t.ID, prev)
				}
			}
			if perr != nil {
				bad = append(bad, TaskLineError{name, lineNo, perr})
			} else {
				seen[t.ID] = lineNo
				tasks = append(tasks, t)
			}
		}
		if errors.Is(err, io.EOF) {
			return tasks, bad, nil
		}
	}
}

// ReadEmbeddedTasks parses a task file that ships with the binary (name
// labels errors). Unlike ReadTasks, a malformed line is an error: a test
// keeps such a file valid.
func ReadEmbeddedTasks(data []byte, name string) ([]Task, error) {
	tasks, bad, err := ReadTasks(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("embedded task set is corrupt: %w", bad[0])
	}
	return tasks, nil
}

// readLine returns the next line without its newline; tooLong reports a line
// over MaxTaskLine, whose bytes are discarded.
func ReadLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, rerr := br.ReadLine()
		if !tooLong {
			if len(line)+len(chunk) > MaxTaskLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if rerr != nil {
			return line, tooLong, rerr
		}
		if !isPrefix {
			return line, tooLong, nil
		}
	}
}

func parseTaskLine(line []byte) (Task, error) {
	var w taskLine
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&w); err != nil {
		return Task{}, fmt.Errorf("bad JSON: %w", err)
	}
	if dec.More() {
		return Task{}, errors.New("bad JSON: more than one value on the line")
	}
	t := Task{
		Question: w.Question, Solution: w.Solution, Test: w.Test,
		EntryPoint: w.EntryPoint, Roots: w.Roots, Split: w.Split, Category: w.Category,
		Source: strings.TrimSpace(w.Source), License: w.License, Origin: w.Origin,
	}
	switch {
	case w.TaskID != nil:
		t.ID = *w.TaskID
	case w.QuestionID != nil:
		t.ID = *w.QuestionID
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"task_id", t.ID}, {"solution", t.Solution}, {"test", t.Test}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Task{}, fmt.Errorf("missing or empty field(s): %s", strings.Join(missing, ", "))
	}
	for i, r := range t.Roots {
		if strings.TrimSpace(r) == "" {
			return Task{}, fmt.Errorf("task %s: root %d is empty", t.ID, i)
		}
	}
	switch t.Split {
	case "":
		t.Split = SplitFor(t.ID)
	case SplitTrain, SplitVal, SplitTest:
	default:
		return Task{}, fmt.Errorf("task %s: unknown split %q (want train, val or test)", t.ID, t.Split)
	}
	return t, nil
}

// SplitFor is the split of a task that names none: a stable hash of its id,
// 80/10/10 train/val/test, so every tree of a task lands in one split.
func SplitFor(taskID string) string {
	h := fnv.New32a()
	h.Write([]byte(taskID))
	switch v := h.Sum32() % 10; {
	case v == 8:
		return SplitVal
	case v == 9:
		return SplitTest
	default:
		return SplitTrain
	}
}

// WriteTasks writes tasks as JSONL, one object per line.
func WriteTasks(w io.Writer, tasks []Task) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range tasks {
		if err := enc.Encode(&tasks[i]); err != nil {
			return fmt.Errorf("write task %s: %w", tasks[i].ID, err)
		}
	}
	return nil
}

// TasksOfSplits keeps the tasks whose split is one of splits ("all" keeps
// every task).
func TasksOfSplits(tasks []Task, splits []string) ([]Task, error) {
	want := map[string]bool{}
	for _, s := range splits {
		switch s {
		case "all":
			want[SplitTrain], want[SplitVal], want[SplitTest] = true, true, true
		case SplitTrain, SplitVal, SplitTest:
			want[s] = true
		default:
			return nil, fmt.Errorf("unknown split %q (want train, val or test)", s)
		}
	}
	var kept []Task
	for _, t := range tasks {
		if want[t.Split] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}
