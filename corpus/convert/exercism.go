package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"triage/corpus"
)

// Exercism's Python track.
const (
	// ExercismSource is the source of its tasks and the word that names
	// the embedded set.
	ExercismSource = "exercism"
	// ExercismRepo is the upstream repository.
	ExercismRepo = "https://github.com/exercism/python"
	// exercisesDir holds the practice exercises, one folder each.
	exercisesDir = "exercises/practice"
)

// ExercismTaskID is the task id of the exercise slug: "exercism_" and the
// slug with "-" as "_".
func ExercismTaskID(slug string) string {
	return "exercism_" + strings.ReplaceAll(slug, "-", "_")
}

// exerciseConfig is the part of an exercise's .meta/config.json read here.
type exerciseConfig struct {
	Files map[string][]string `json:"files"`
}

// randomModules are the imports that make a reference's results vary from
// run to run: a mutant's verdict could then change between runs.
var randomModules = []string{"random", "secrets", "uuid"}

// ExercismTasks converts every practice exercise of the track checked out
// in dir (at commit) into a task, without running anything, in slug order.
// An exercise that cannot be converted is returned as skipped, with the
// reason. An unreadable folder is an error.
func ExercismTasks(dir, commit string) ([]corpus.Task, []Skipped, error) {
	root := filepath.Join(dir, filepath.FromSlash(exercisesDir))
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, corpus.BadInput("%s: not an Exercism Python track: %v", dir, err)
	}
	var tasks []corpus.Task
	var skipped []Skipped
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		t, dropped, reason, err := exerciseTask(root, e.Name(), commit)
		skipped = append(skipped, dropped...)
		switch {
		case err != nil:
			return nil, nil, err
		case reason != "":
			r, detail, _ := strings.Cut(reason, ": ")
			skipped = append(skipped, Skipped{ID: ExercismTaskID(e.Name()), Stage: StageConvert, Reason: r, Detail: detail})
		default:
			tasks = append(tasks, t)
		}
	}
	return tasks, skipped, nil
}

// exerciseTask converts one exercise, or returns why it cannot ("reason:
// detail"), with the tests it leaves out of the task. The error is for
// files that exist but cannot be read.
func exerciseTask(root, slug, commit string) (corpus.Task, []Skipped, string, error) {
	t, reason, err := exerciseTaskOf(root, slug, commit)
	if err != nil || reason != "" {
		return t, nil, reason, err
	}
	var dropped []Skipped
	var names []string
	t.Test, names = dropSkippedTests(t.Test)
	for _, n := range names {
		dropped = append(dropped, Skipped{ID: t.ID, Test: n, Stage: StageConvert, Reason: "test marked skip upstream"})
	}
	return t, dropped, "", nil
}

func exerciseTaskOf(root, slug, commit string) (corpus.Task, string, error) {
	dir := filepath.Join(root, slug)
	read := func(rel string) (string, bool, error) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("exercise %s: %w", slug, err)
		}
		return normalize(string(b)), true, nil
	}
	raw, ok, err := read(".meta/config.json")
	if err != nil || !ok {
		return corpus.Task{}, "no .meta/config.json", err
	}
	var cfg exerciseConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return corpus.Task{}, "malformed .meta/config.json: " + err.Error(), nil
	}
	module, example, testFile, why := cfg.files()
	if why != "" {
		return corpus.Task{}, why, nil
	}
	ref, ok, err := read(example)
	if err != nil || !ok {
		return corpus.Task{}, "no example file: " + example, err
	}
	test, ok, err := read(testFile)
	if err != nil || !ok {
		return corpus.Task{}, "no test file: " + testFile, err
	}
	local := localModules(dir)
	if why := referenceImportsWhy(ref, module, local); why != "" {
		return corpus.Task{}, why, nil
	}
	test, why, err = inlineHelpers(test, module, local, read)
	if err != nil || why != "" {
		return corpus.Task{}, why, err
	}
	test, names := RewriteImports(test, module)
	if len(names) == 0 {
		return corpus.Task{}, "the test file does not import the exercise module " + module, nil
	}
	question, ok, err := read(".docs/instructions.md")
	if err != nil || !ok {
		return corpus.Task{}, "no .docs/instructions.md", err
	}
	if app, ok, err := read(".docs/instructions.append.md"); err != nil {
		return corpus.Task{}, "", err
	} else if ok {
		question += "\n" + app
	}
	return corpus.Task{
		ID: ExercismTaskID(slug), Question: question, Solution: ref, Test: test,
		EntryPoint: exerciseEntryPoint(ref, test, names), Split: corpus.SplitFor(ExercismTaskID(slug)),
		Category: slug, Source: ExercismSource, License: License,
		Origin: ExercismRepo + "/tree/" + commit + "/" + exercisesDir + "/" + slug,
	}, "", nil
}

// files are the exercise's solution module, its example (the reference)
// and its first test file; why says what makes the exercise unusable: not
// one solution, example and test file, more files needed, or a solution
// that is not a module of the exercise.
func (cfg exerciseConfig) files() (module, example, test, why string) {
	sol, tests, ex := cfg.Files["solution"], cfg.Files["test"], cfg.Files["example"]
	var extra []string
	for k, v := range cfg.Files {
		if len(v) > 0 && k != "solution" && k != "test" && k != "example" {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	switch {
	case len(sol) != 1 || len(ex) != 1 || len(tests) == 0:
		return "", "", "", fmt.Sprintf("not one solution, example and test file: solution %v, example %v, test %v", sol, ex, tests)
	case len(extra) > 0:
		return "", "", "", "needs more files: " + strings.Join(extra, ", ")
	case !strings.HasSuffix(sol[0], ".py") || strings.Contains(sol[0], "/"):
		return "", "", "", "solution file is not a module of the exercise: " + sol[0]
	}
	return strings.TrimSuffix(sol[0], ".py"), ex[0], tests[0], ""
}

// localModules are the modules of the exercise folder dir: what a file of
// the exercise could import.
func localModules(dir string) map[string]bool {
	local := map[string]bool{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if n, ok := strings.CutSuffix(e.Name(), ".py"); ok && !e.IsDir() {
				local[n] = true
			}
		}
	}
	return local
}

// referenceImportsWhy says why the reference ref cannot stand alone: it
// imports a module of the exercise (relatively, one of local, or the
// solution module itself) or a source of randomness; "" when it can.
func referenceImportsWhy(ref, module string, local map[string]bool) string {
	for _, imp := range ParseImports(ref) {
		for _, m := range importedModules(imp) {
			switch {
			case imp.Level > 0 || local[m] || m == module:
				return "the reference imports a module of the exercise: " + m
			case slices.Contains(randomModules, m):
				return "uses randomness: imports " + m
			}
		}
	}
	return ""
}

// importedModules are the top-level modules an import statement names.
func importedModules(imp ImportStmt) []string {
	if imp.From {
		first, _, _ := strings.Cut(imp.Module, ".")
		return []string{first}
	}
	var out []string
	for _, n := range imp.Names {
		first, _, _ := strings.Cut(n.Name, ".")
		out = append(out, first)
	}
	return out
}

// inlineHelpers replaces each `from helper import names` of the test file,
// where helper is a module of the exercise folder other than the exercise
// module, with the helper's text. That is trivially right when the helper
// imports no module of the exercise and is imported only that way; any
// other use of a local module is a reason to skip the exercise.
func inlineHelpers(test, module string, local map[string]bool, read func(string) (string, bool, error)) (string, string, error) {
	imps := ParseImports(test)
	for i := len(imps) - 1; i >= 0; i-- {
		imp := imps[i]
		for _, m := range importedModules(imp) {
			if m == module || !local[m] && imp.Level == 0 {
				continue
			}
			if !imp.From || imp.Level > 0 || imp.Star || strings.Contains(imp.Module, ".") {
				return "", "the tests use a helper module in a way not inlined: " + m, nil
			}
			text, ok, err := read(m + ".py")
			if err != nil || !ok {
				return "", "no helper file: " + m + ".py", err
			}
			for _, himp := range ParseImports(text) {
				for _, hm := range importedModules(himp) {
					if himp.Level > 0 || local[hm] {
						return "", "the helper module " + m + " imports a module of the exercise", nil
					}
				}
			}
			indent := lineIndent(test, imp.Start)
			if indent != "" {
				return "", "the tests import the helper module " + m + " inside a block", nil
			}
			block := "# " + m + ".py, inlined:\n" + strings.TrimRight(text, "\n") + "\n# end of " + m + ".py\n"
			test = test[:imp.Start] + block + strings.TrimPrefix(test[imp.End:], "\n")
		}
	}
	return test, "", nil
}

var skipDecoratorRE = regexp.MustCompile(`^([ \t]*)@(?:unittest\.skip|pytest\.mark\.skip)\b(?:\(|$)`)
var defNameRE = regexp.MustCompile(`^[ \t]*(?:async\s+)?def\s+([A-Za-z_]\w*)`)

// dropSkippedTests removes the tests marked to be skipped always
// (@unittest.skip, @pytest.mark.skip; not skipIf): the sandbox counts a
// skipped test as not passed, and upstream skips those it does not expect
// a solution to pass (Exercism's "extra-credit"). It returns the test file
// without them and their names.
func dropSkippedTests(test string) (string, []string) {
	lines := strings.SplitAfter(test, "\n")
	var out []string
	var names []string
	for i := 0; i < len(lines); i++ {
		m := skipDecoratorRE.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		// The decorated def: more decorators, the def line, then every
		// line indented deeper than the decorator (or blank).
		j := i + 1
		for j < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[j], " \t"), "@") {
			j++
		}
		def := lineAt(lines, j)
		d := defNameRE.FindStringSubmatch(def)
		if d == nil || def[:len(def)-len(strings.TrimLeft(def, " \t"))] != m[1] {
			out = append(out, lines[i]) // not a decorated function this can cut
			continue
		}
		j++
		for j < len(lines) {
			l := lines[j]
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, m[1]+" ") && !strings.HasPrefix(l, m[1]+"\t") {
				break
			}
			j++
		}
		names = append(names, d[1])
		i = j - 1
	}
	return strings.Join(out, ""), names
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// lineIndent returns the blanks before offset i on its line.
func lineIndent(s string, i int) string {
	j := strings.LastIndexByte(s[:i], '\n') + 1
	return s[j:i]
}

var topLevelDefRE = regexp.MustCompile(`(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`)

// exerciseEntryPoint is the first function the tests import from the
// exercise module that the reference defines at module level; for `import
// module`, the first such function the tests use as an attribute of it;
// else the first class imported; else the first name.
func exerciseEntryPoint(ref, test string, names []ImportName) string {
	defs := map[string]bool{}
	for _, m := range topLevelDefRE.FindAllStringSubmatch(ref, -1) {
		defs[m[1]] = true
	}
	for _, n := range names {
		if defs[n.Name] {
			return n.Name
		}
	}
	for _, n := range names {
		if n.As != "" || !strings.Contains(test, n.Name+".") {
			continue
		}
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(n.Name) + `\.([A-Za-z_]\w*)`)
		for _, m := range re.FindAllStringSubmatch(test, -1) {
			if defs[m[1]] {
				return m[1]
			}
		}
	}
	for _, n := range names {
		if regexp.MustCompile(`(?m)^class\s+` + regexp.QuoteMeta(n.Name) + `\b`).MatchString(ref) {
			return n.Name
		}
	}
	if len(names) > 0 {
		return names[0].Name
	}
	return ""
}

// ConvertExercism converts the track checked out in dir and keeps the
// tasks that pass the input checks (see package doc).
func ConvertExercism(ctx context.Context, exec corpus.Executor, dir string, o Options) ([]corpus.Task, Report, error) {
	commit, err := Commit(dir, o.Commit)
	if err != nil {
		return nil, Report{}, err
	}
	if err := checkMIT(dir); err != nil {
		return nil, Report{}, err
	}
	rep := newReport(ExercismSource, commit)
	tasks, skipped, err := ExercismTasks(dir, commit)
	if err != nil {
		return nil, rep, err
	}
	rep.Units = len(tasks)
	for _, s := range skipped {
		if s.Test == "" {
			rep.Units++
		}
		rep.skip(s)
	}
	kept, err := keepValid(ctx, exec, tasks, o, &rep)
	return kept, rep, err
}
