package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTasks(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantIDs   []string
		wantBad   []int // line numbers reported malformed
		badSubstr string
	}{
		{
			name:    "triage and kodcode ids",
			in:      `{"task_id":"a","question":"q","solution":"def f(): pass","test":"from solution import f"}` + "\n" + `{"question_id":"Leetcode_1_I","solution":"x=1","test":"t","gpt_difficulty":"easy"}`,
			wantIDs: []string{"a", "Leetcode_1_I"},
		},
		{
			name:      "malformed line keeps the rest",
			in:        "{\"task_id\":\"a\",\"solution\":\"s\",\"test\":\"t\"}\n{not json\n\n{\"task_id\":\"b\",\"solution\":\"s\",\"test\":\"t\"}\n",
			wantIDs:   []string{"a", "b"},
			wantBad:   []int{2},
			badSubstr: "bad JSON",
		},
		{
			name:      "missing fields",
			in:        `{"task_id":"a","solution":""}`,
			wantBad:   []int{1},
			badSubstr: "solution, test",
		},
		{
			name:      "duplicate id",
			in:        "{\"task_id\":\"a\",\"solution\":\"s\",\"test\":\"t\"}\n{\"task_id\":\"a\",\"solution\":\"s\",\"test\":\"t\"}",
			wantIDs:   []string{"a"},
			wantBad:   []int{2},
			badSubstr: "duplicate task_id",
		},
		{
			name:      "unknown split",
			in:        `{"task_id":"a","solution":"s","test":"t","split":"dev"}`,
			wantBad:   []int{1},
			badSubstr: "unknown split",
		},
		{
			name:      "two values on a line",
			in:        `{"task_id":"a","solution":"s","test":"t"} {}`,
			wantBad:   []int{1},
			badSubstr: "more than one value",
		},
		{
			name:      "empty root",
			in:        `{"task_id":"a","solution":"s","test":"t","roots":[" "]}`,
			wantBad:   []int{1},
			badSubstr: "root 0 is empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, bad, err := ReadTasks(strings.NewReader(tt.in), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, task := range tasks {
				ids = append(ids, task.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIDs, ",") {
				t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
			}
			if len(bad) != len(tt.wantBad) {
				t.Fatalf("bad = %v, want lines %v", bad, tt.wantBad)
			}
			for i, b := range bad {
				if b.Line != tt.wantBad[i] || b.File != "x.jsonl" {
					t.Errorf("bad[%d] at %s:%d, want x.jsonl:%d", i, b.File, b.Line, tt.wantBad[i])
				}
				if !strings.Contains(b.Error(), tt.badSubstr) {
					t.Errorf("bad[%d] = %q, want it to mention %q", i, b.Error(), tt.badSubstr)
				}
			}
		})
	}
}

func TestReadTasksLongLine(t *testing.T) {
	in := `{"task_id":"a","solution":"` + strings.Repeat("x", MaxTaskLine) + `","test":"t"}` + "\n" +
		`{"task_id":"b","solution":"s","test":"t"}`
	tasks, bad, err := ReadTasks(strings.NewReader(in), "big")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != "b" || len(bad) != 1 || bad[0].Line != 1 {
		t.Fatalf("tasks=%d bad=%v", len(tasks), bad)
	}
}

func TestSplitForIsStableAndBalanced(t *testing.T) {
	counts := map[string]int{}
	for i := 0; i < 10000; i++ {
		id := fmt.Sprintf("task-%d", i)
		s := SplitFor(id)
		if SplitFor(id) != s {
			t.Fatal("unstable split")
		}
		counts[s]++
	}
	if counts[SplitTrain] < 7500 || counts[SplitVal] < 800 || counts[SplitTest] < 800 {
		t.Fatalf("unbalanced splits: %v", counts)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	in := []Task{{ID: "a", Question: "q<>&", Solution: "s", Test: "t", Roots: []string{"r1"}, Split: SplitVal, Category: "strings",
		Source: "src", License: "MIT", Origin: "https://example.org/r/tree/0123/a"}}
	var buf bytes.Buffer
	if err := WriteTasks(&buf, in); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, bad, err := LoadTasks(path)
	if err != nil || len(bad) != 0 || len(out) != 1 {
		t.Fatalf("out=%v bad=%v err=%v", out, bad, err)
	}
	if got := out[0]; got.ID != "a" || got.Question != "q<>&" || got.Roots[0] != "r1" || got.Split != SplitVal || got.Category != "strings" ||
		got.Source != "src" || got.License != "MIT" || got.Origin != in[0].Origin {
		t.Fatalf("round trip: %+v", got)
	}
	if _, _, err := LoadTasks(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func FuzzReadTasks(f *testing.F) {
	f.Add([]byte(`{"task_id":"a","solution":"s","test":"t"}`))
	f.Add([]byte("{\"question_id\":\"q\",\"solution\":\"s\",\"test\":\"t\",\"split\":\"val\"}\n\n{"))
	f.Add([]byte("\xff\xfe\n[1,2]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tasks, bad, err := ReadTasks(bytes.NewReader(data), "fuzz")
		if err != nil {
			t.Fatalf("in-memory read failed: %v", err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if len(tasks)+len(bad) > lines {
			t.Fatalf("%d tasks + %d bad > %d lines", len(tasks), len(bad), lines)
		}
		for _, task := range tasks {
			if task.ID == "" || task.Solution == "" || task.Test == "" {
				t.Fatalf("accepted incomplete task %+v", task)
			}
			if task.Split != SplitTrain && task.Split != SplitVal && task.Split != SplitTest {
				t.Fatalf("bad split %q", task.Split)
			}
		}
	})
}
