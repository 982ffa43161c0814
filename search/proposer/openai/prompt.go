package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"triage/corpus"
)

const systemPrompt = "You are an expert Python developer who repairs programs so that they pass their unit tests."

// proposeMessages is the diagnose-and-propose prompt: the task, the program
// with line numbers, the test feedback, and a request for k structured edits.
func proposeMessages(req corpus.ProposeRequest) []Message {
	var b strings.Builder
	if req.Task != nil && req.Task.Question != "" {
		fmt.Fprintf(&b, "## Problem\n%s\n\n", strings.TrimSpace(req.Task.Question))
	}
	fmt.Fprintf(&b, "## Program (solution.py)\n```python\n%s```\n\n", numbered(req.Program))
	fmt.Fprintf(&b, "## Test results\npass rate %.0f%% (%d tests), status %s\n%s\n\n",
		100*req.Exec.PassRate, len(req.Exec.Tests), req.Exec.Status, strings.TrimSpace(req.Exec.Feedback))
	fmt.Fprintf(&b, `## Your job
First diagnose why the program fails: which tests fail, what they expect versus what the program returns, and which lines are responsible.
Then propose exactly %d different candidate edits, each a small, specific change (where, what, why), ordered from most to least likely to fix the failures. Do not write the revised program yet.
Answer with one JSON object and nothing else:
{"diagnosis": "<your diagnosis>", "edits": [{"line": <line number>, "change": "<what to change, quoting old and new code>", "reason": "<why, citing a failing test>"}]}`, req.K)
	return []Message{{Role: RoleSystem, Content: systemPrompt}, {Role: RoleUser, Content: b.String()}}
}

// reviseMessages asks for the whole program after one chosen edit.
func reviseMessages(req corpus.ReviseRequest) []Message {
	var b strings.Builder
	if req.Task != nil && req.Task.Question != "" {
		fmt.Fprintf(&b, "## Problem\n%s\n\n", strings.TrimSpace(req.Task.Question))
	}
	fmt.Fprintf(&b, "## Program (solution.py)\n```python\n%s```\n\n", numbered(req.Program))
	fmt.Fprintf(&b, "## Diagnosis\n%s\n\n## Edit to apply\n%s\n\n", strings.TrimSpace(req.Diagnosis), strings.TrimSpace(req.Edit.Text))
	b.WriteString("Apply this edit, and only this edit, to the program. Answer with the complete revised solution.py in one ```python code block, without line numbers.")
	return []Message{{Role: RoleSystem, Content: systemPrompt}, {Role: RoleUser, Content: b.String()}}
}

func numbered(program string) string {
	var b strings.Builder
	for i, line := range strings.SplitAfter(program, "\n") {
		if line == "" {
			continue
		}
		fmt.Fprintf(&b, "%3d | %s", i+1, line)
		if !strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wireEdit is one edit as the prompt asks for it. Models vary field types
// (a line as "7"), so line is decoded leniently.
type wireEdit struct {
	Line   json.RawMessage `json:"line"`
	Change string          `json:"change"`
	Reason string          `json:"reason"`
}

type wireProposal struct {
	Diagnosis string     `json:"diagnosis"`
	Edits     []wireEdit `json:"edits"`
}

// parseProposal extracts the diagnosis and edits from a model's answer: a
// JSON object, possibly inside a code fence or surrounded by prose. Edits
// without a change are dropped. ok is false when nothing usable was found.
func parseProposal(raw string) (diagnosis string, edits []corpus.ProposedEdit, ok bool) {
	diagnosis, edits, _, ok = parseProposalSpans(raw)
	return diagnosis, edits, ok
}

// parseProposalSpans is parseProposal that also returns, for each edit,
// the byte range of its JSON object in raw (nil when it cannot be told).
func parseProposalSpans(raw string) (diagnosis string, edits []corpus.ProposedEdit, spans [][2]int, ok bool) {
	start, end, found := firstJSONObject(raw)
	if !found {
		return "", nil, nil, false
	}
	obj := raw[start:end]
	var w wireProposal
	if err := json.Unmarshal([]byte(obj), &w); err != nil {
		return "", nil, nil, false
	}
	all := editSpans(obj)
	for i, e := range w.Edits {
		change := strings.TrimSpace(e.Change)
		if change == "" {
			continue
		}
		line := strings.Trim(strings.TrimSpace(string(e.Line)), `"`)
		text := change
		if line != "" && line != "null" && line != "0" {
			text = "Line " + line + ": " + change
		}
		if r := strings.TrimSpace(e.Reason); r != "" {
			text += "; " + r
		}
		payload, _ := json.Marshal(e)
		edits = append(edits, corpus.ProposedEdit{Text: text, Payload: string(payload)})
		if len(all) == len(w.Edits) {
			spans = append(spans, [2]int{start + all[i][0], start + all[i][1]})
		}
	}
	if len(spans) != len(edits) {
		spans = nil
	}
	diagnosis = strings.TrimSpace(w.Diagnosis)
	return diagnosis, edits, spans, diagnosis != "" && len(edits) > 0
}

// editSpans returns the byte range of each element of obj's top-level
// "edits" array (the last such key, as encoding/json decodes it); nil when
// obj has none or is not an object.
func editSpans(obj string) [][2]int {
	dec := json.NewDecoder(strings.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var spans [][2]int
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if k, _ := key.(string); k != "edits" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			var skip json.RawMessage // "edits" that is not an array
			if dec.Decode(&skip) != nil {
				return nil
			}
			spans = nil
			continue
		}
		spans = spans[:0]
		for dec.More() {
			var el json.RawMessage
			if dec.Decode(&el) != nil {
				return nil
			}
			end := int(dec.InputOffset())
			spans = append(spans, [2]int{end - len(el), end})
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil
		}
	}
	return spans
}

// meanLogProb is the mean log-probability of the tokens that overlap the
// byte range span of content, the concatenation of tokens; ok is false
// when the tokens do not spell content or none overlaps the span.
func meanLogProb(content string, tokens []TokenLogProb, span [2]int) (mean float64, ok bool) {
	pos, sum, n := 0, 0.0, 0
	for _, t := range tokens {
		end := pos + len(t.Token)
		if end > len(content) || content[pos:end] != t.Token {
			return 0, false
		}
		if end > span[0] && pos < span[1] && !math.IsNaN(t.LogProb) && !math.IsInf(t.LogProb, 0) {
			sum += t.LogProb
			n++
		}
		pos = end
	}
	if pos != len(content) || n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// firstJSONObject returns the byte range of the first balanced {...} in s
// that parses as JSON, skipping braces inside JSON strings.
func firstJSONObject(s string) (start, end int, ok bool) {
	for start := strings.IndexByte(s, '{'); start >= 0; {
		depth, inStr, esc := 0, false, false
		for i := start; i < len(s); i++ {
			c := s[i]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 {
					if json.Valid([]byte(s[start : i+1])) {
						return start, i + 1, true
					}
					i = len(s)
				}
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return 0, 0, false
}

var fenceRE = regexp.MustCompile("(?s)```[ \t]*(?:python3?|py)?[ \t]*\r?\n(.*?)```")

// ExtractProgram takes the last fenced code block of the answer (models often
// quote the old code first); with no fence, an answer that looks like Python
// source is taken whole. Line-number prefixes copied from the prompt are
// removed.
func ExtractProgram(raw string) (string, bool) {
	var code string
	if m := fenceRE.FindAllStringSubmatch(raw, -1); len(m) > 0 {
		code = m[len(m)-1][1]
	} else if t := strings.TrimSpace(raw); strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "import ") ||
		strings.HasPrefix(t, "from ") || strings.HasPrefix(t, "class ") {
		code = t + "\n"
	}
	code = stripLineNumbers(code)
	if strings.TrimSpace(code) == "" {
		return "", false
	}
	if !strings.HasSuffix(code, "\n") {
		code += "\n"
	}
	return code, true
}

var lineNoRE = regexp.MustCompile(`^\s*\d+ \| ?`)

// stripLineNumbers removes "  7 | " prefixes when every non-empty line has one.
func stripLineNumbers(code string) string {
	lines := strings.Split(code, "\n")
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && !lineNoRE.MatchString(l) {
			return code
		}
	}
	for i, l := range lines {
		lines[i] = lineNoRE.ReplaceAllString(l, "")
	}
	return strings.Join(lines, "\n")
}
