package tsapr

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed prompts/*
var defaultPromptFS embed.FS

// Prompt file names. A prompt folder (--prompts DIR) may hold any of them;
// the others keep their defaults.
const (
	SystemFile   = "system.txt"    // the system message of every call
	GenerateFile = "generate.tmpl" // chain-of-thought repair prompt
	ReflectFile  = "reflect.tmpl"  // self-reflection prompt, same conversation
	JudgeFile    = "judge.tmpl"    // LLM-as-Judge prompt
)

// PromptFiles lists the prompt files in the order a folder is read.
var PromptFiles = []string{SystemFile, GenerateFile, ReflectFile, JudgeFile}

// Prompts are the TSAPR prompts: one system message and three text/template
// templates executed with PromptData.
type Prompts struct {
	System                   string
	generate, reflect, judge *template.Template
}

// PromptData is what the templates see. Program is the program being
// repaired (the selected node's); Patch fields describe a candidate.
type PromptData struct {
	Question string
	Program  string
	Tests    string // the pytest file, clipped
	Status   string // the program's run status (ok, load_error, timeout…)
	Passed   int
	Total    int
	Feedback string // pytest-style output of the program's run
	// Reasoning and Reflection are the candidate's chain of thought and
	// self-reflection, with code blocks removed.
	Reasoning, Reflection string
	Patch                 string // the patched program
	Diff                  string // unified diff from Program to Patch, when a differ is set
	PatchStatus           string
	PatchPassed           int
	PatchFeedback         string
}

// DefaultPrompts returns the prompts shipped in search/tsapr/prompts.
func DefaultPrompts() (*Prompts, error) {
	return loadPrompts(func(name string) ([]byte, error) {
		return defaultPromptFS.ReadFile("prompts/" + name)
	})
}

// LoadPrompts reads the prompt files in dir, falling back to the defaults
// for files it does not hold. A folder with none of the files, or a
// template that does not parse or execute on sample data, is an error.
func LoadPrompts(dir string) (*Prompts, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("prompts: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("prompts: %s is not a folder", dir)
	}
	found := 0
	p, err := loadPrompts(func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return defaultPromptFS.ReadFile("prompts/" + name)
		}
		if err == nil {
			found++
		}
		return b, err
	})
	if err != nil {
		return nil, err
	}
	if found == 0 {
		return nil, fmt.Errorf("prompts: %s holds none of %s", dir, strings.Join(PromptFiles, ", "))
	}
	return p, nil
}

func loadPrompts(read func(name string) ([]byte, error)) (*Prompts, error) {
	p := &Prompts{}
	for _, name := range PromptFiles {
		b, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("prompts: %w", err)
		}
		if name == SystemFile {
			p.System = strings.TrimSpace(string(b))
			continue
		}
		t, err := template.New(name).Option("missingkey=error").Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("prompts: %w", err)
		}
		// Execute once on sample data so a template naming a field that
		// does not exist fails here, not in the middle of a search.
		if err := t.Execute(&bytes.Buffer{}, PromptData{}); err != nil {
			return nil, fmt.Errorf("prompts: %s: %w", name, err)
		}
		switch name {
		case GenerateFile:
			p.generate = t
		case ReflectFile:
			p.reflect = t
		case JudgeFile:
			p.judge = t
		}
	}
	return p, nil
}

func render(t *template.Template, d PromptData) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("prompt %s: %w", t.Name(), err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}
