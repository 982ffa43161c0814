// Command fake-openai serves a scripted OpenAI-compatible chat endpoint
// (search/proposer/openai/openaitest) for trying `triage search --proposer
// openai` and `--method tsapr` where no model server runs. It is not a
// model: it knows each task's reference solution and answers by script, so
// what a run prints shows the plumbing (prompts, retries, judging,
// accounting, output), not repair quality.
//
// Per task (found by its question text in the prompt), TSAPR's n-th patch is
// the program it was shown unchanged (n mod 3 = 0), that program with a
// comment added (1), or the reference solution (2); reflections keep the
// patch; the judge's first reply to each patch holds no score (so it is
// asked again) and later ones say "Score: 35". The policy proposer's
// diagnosis proposes a comment edit and the reference solution, in that
// order.
//
//	go run ./scripts/fake-openai -addr 127.0.0.1:8000 -tasks bundled
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/search/proposer/openai/openaitest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "listen address")
	tasksPath := flag.String("tasks", bundled.Name, `tasks: a JSONL file or "bundled"`)
	flag.Parse()
	var tasks []corpus.Task
	var err error
	if *tasksPath == bundled.Name {
		tasks, err = bundled.Tasks()
	} else {
		tasks, _, err = corpus.LoadTasks(*tasksPath)
	}
	if err != nil {
		log.Fatal(err)
	}
	calls := map[string]int{}
	respond := func(req openaitest.Request) openaitest.Reply {
		prompt := req.LastUser()
		var task *corpus.Task
		for i := range tasks {
			if q := strings.TrimSpace(tasks[i].Question); q != "" && strings.Contains(req.Messages[1].Content, q) {
				task = &tasks[i]
			}
		}
		if task == nil {
			return openaitest.Reply{Status: http.StatusBadRequest}
		}
		key := func(kind string) int { calls[task.ID+kind]++; return calls[task.ID+kind] - 1 }
		shown := codeAfter(prompt, "## Buggy program (solution.py)\n")
		if shown == "" {
			shown = codeAfter(prompt, "## Program (solution.py)\n")
		}
		switch {
		case strings.Contains(prompt, "Intended repair"): // TSAPR chain of thought
			patch := [3]string{shown, shown + "# checked\n", task.Solution}[key("gen")%3]
			return openaitest.Text("Understanding: the function misses a case.\n```python\n" + patch + "```")
		case strings.Contains(prompt, "self-reflection"):
			return openaitest.Text("The patch addresses the failing test. Final:\n```python\n" + codeAfter(req.Messages[2].Content, "") + "```")
		case strings.Contains(prompt, "Score the quality"):
			if key("judge")%6 == 0 {
				return openaitest.Text("The patch looks partly right.")
			}
			return openaitest.Text("It fixes part of the failure.\nScore: 35")
		case strings.Contains(prompt, "Then propose exactly"): // policy proposer: diagnose
			return openaitest.Text(`{"diagnosis": "The failing test expects a different value; the logic is off.", "edits": [` +
				`{"line": 1, "change": "add a comment that the function was checked", "reason": "guess"},` +
				`{"line": 1, "change": "rewrite the function as the problem states", "reason": "the failing test"}]}`)
		case strings.Contains(prompt, "Apply this edit"):
			if strings.Contains(prompt, "rewrite the function") {
				return openaitest.Text("```python\n" + task.Solution + "```")
			}
			return openaitest.Text("```python\n" + shown + "# checked\n```")
		}
		return openaitest.Reply{Status: http.StatusBadRequest}
	}
	fmt.Printf("fake OpenAI-compatible server on http://%s/v1 (model %s, %d tasks)\n", *addr, openaitest.ModelName, len(tasks))
	log.Fatal(http.ListenAndServe(*addr, openaitest.NewHandler(respond)))
}

// codeAfter returns the body of the first ```python block after header in
// s (the last block of s when header is ""), without line numbers ("  7 | ").
func codeAfter(s, header string) string {
	i := strings.LastIndex(s, "```python\n")
	if header != "" {
		h := strings.Index(s, header)
		if h < 0 {
			return ""
		}
		i = strings.Index(s[h:], "```python\n")
		if i >= 0 {
			i += h
		}
	}
	if i < 0 {
		return ""
	}
	body := s[i+len("```python\n"):]
	if j := strings.Index(body, "```"); j >= 0 {
		body = body[:j]
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		if k := strings.Index(line, " | "); k >= 0 && strings.TrimSpace(line[:k]) != "" && strings.Trim(line[:k], " 0123456789") == "" {
			line = line[k+3:]
		}
		b.WriteString(line)
	}
	return b.String()
}
