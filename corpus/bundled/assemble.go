package bundled

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"

	"triage/corpus"
)

type meta struct {
	Category   string `json:"category"`
	EntryPoint string `json:"entry_point"`
}

// Assemble reads every task folder under src and returns the tasks sorted by
// id. A task whose id is in splits keeps that split; the others get one from a
// per-category rotation ordered by a stable hash (about 80/10/10 within every
// category).
func Assemble(src string, splits map[string]string) ([]corpus.Task, error) {
	dirs, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("assemble tasks: %w", err)
	}
	var tasks []corpus.Task
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t, err := readTask(filepath.Join(src, d.Name()), d.Name())
		if err != nil {
			return nil, err
		}
		t.Split = splits[t.ID]
		tasks = append(tasks, t)
	}
	assignSplits(tasks)
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, nil
}

func readTask(dir, id string) (corpus.Task, error) {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("task %s: %w", id, err)
		}
		return string(b), nil
	}
	t := corpus.Task{ID: id}
	var err error
	if t.Question, err = read("question.md"); err != nil {
		return t, err
	}
	if t.Solution, err = read("solution.py"); err != nil {
		return t, err
	}
	if t.Test, err = read("test_solution.py"); err != nil {
		return t, err
	}
	m, err := read("meta.json")
	if err != nil {
		return t, err
	}
	var md meta
	if err := json.Unmarshal([]byte(m), &md); err != nil {
		return t, fmt.Errorf("task %s: meta.json: %w", id, err)
	}
	t.Category, t.EntryPoint = md.Category, md.EntryPoint
	return t, nil
}

// assignSplits gives every task without a split one: within each category,
// tasks ordered by a stable hash of their id take train, train, …, val, test
// in a 10-slot rotation whose phase depends on the category, so small
// categories still contribute to val and test.
func assignSplits(tasks []corpus.Task) {
	byCat := map[string][]int{}
	var cats []string
	for i, t := range tasks {
		if _, ok := byCat[t.Category]; !ok {
			cats = append(cats, t.Category)
		}
		byCat[t.Category] = append(byCat[t.Category], i)
	}
	sort.Strings(cats)
	rotation := []string{corpus.SplitTrain, corpus.SplitTrain, corpus.SplitTrain, corpus.SplitVal, corpus.SplitTrain,
		corpus.SplitTrain, corpus.SplitTrain, corpus.SplitTrain, corpus.SplitTest, corpus.SplitTrain}
	for ci, c := range cats {
		idx := byCat[c]
		sort.Slice(idx, func(a, b int) bool { return hash(tasks[idx[a]].ID) < hash(tasks[idx[b]].ID) })
		n := ci * 3
		for _, i := range idx {
			if tasks[i].Split == "" {
				tasks[i].Split = rotation[n%len(rotation)]
				n++
			}
		}
	}
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
