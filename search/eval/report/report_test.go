package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"triage/policy"
	"triage/policy/policytest"
	"triage/search"
	"triage/search/eval"
)

// sample builds a small report from real replays of two policies.
func sample(t *testing.T) *Report {
	t.Helper()
	trees := []*corpusTree{
		policytest.Exhaustive("a", 3, 3, policytest.FixAt(0.3, 2, 1, 0)),
		policytest.Exhaustive("b", 3, 3, policytest.FixAt(0.4, 0, 2)),
	}
	trees[1].TaskID = "task-a" // two trees of one task
	r := &Report{Title: "test <report> & co", Corpus: "testdata", Split: "test", Trees: 2, Tasks: 1, Budgets: []int{4, 8, 16}}
	for _, name := range []string{"bfs", "passrate", "rex"} {
		p, err := policy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := eval.ReplayTrees(context.Background(), trees, p, []uint64{1, 2}, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := policy.Summarize(outs, r.Budgets, 50, 1)
		if err != nil {
			t.Fatal(err)
		}
		r.Policies = append(r.Policies, PolicyResult{Name: name, Seeds: 2, Summary: sm})
	}
	env, _ := search.NewReplay(trees[0])
	p, _ := policy.New("passrate", nil)
	res, err := search.Run(context.Background(), env, p, search.Config{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Viewer, err = NewViewer(trees[0], res); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMarkdownAndJSON(t *testing.T) {
	r := sample(t)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"| policy | E[T] | tokens | S(4) | S(8) | S(16) | C(16) | AUSC(16) |", "| bfs |", "| rex |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	raw, err := json.Marshal(JSON(r))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Policies map[string]struct {
			ET     float64            `json:"ET"`
			ETSE   float64            `json:"ET_se"`
			Tokens float64            `json:"tokens"`
			S      map[string]float64 `json:"S"`
			AUSC16 *float64           `json:"AUSC16"`
		} `json:"policies"`
		Trees, Tasks int
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	bfs := back.Policies["bfs"]
	if back.Trees != 2 || back.Tasks != 1 || bfs.ET <= 0 || bfs.AUSC16 == nil || len(bfs.S) != 3 {
		t.Errorf("JSON round trip: %s", raw)
	}
	if strings.Contains(md, "Paired by tree") || strings.Contains(string(raw), "paired") {
		t.Error("paired comparisons shown without any")
	}
	r.Paired = []policy.Paired{{A: "rex", B: "bfs", Diff: -1.5, DiffSE: 0.5, Ratio: 0.8, RatioLo: 0.6, RatioHi: 0.95, Trees: 2, Tasks: 1}}
	b.Reset()
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| rex | bfs | -1.50 ± 0.50 | 0.800 | 0.600–0.950 | 2 |") {
		t.Errorf("markdown lacks the paired row:\n%s", b.String())
	}
	if raw, _ := json.Marshal(JSON(r)); !strings.Contains(string(raw), `"paired":[{"a":"rex","b":"bfs"`) {
		t.Errorf("JSON lacks the paired comparison: %s", raw)
	}
}

func TestViewer(t *testing.T) {
	r := sample(t)
	v := r.Viewer
	if !v.Ranked || !v.Solved || len(v.Steps) != len(v.Nodes)-1 {
		t.Fatalf("viewer: ranked %v solved %v, %d steps for %d nodes", v.Ranked, v.Solved, len(v.Steps), len(v.Nodes))
	}
	for i, s := range v.Steps {
		chosen := 0
		for j, c := range s.Frontier {
			if c.Chosen {
				chosen++
				if j != 0 {
					t.Errorf("step %d: chosen edge ranked %d, want first (passrate is greedy)", i, j)
				}
			}
			if j > 0 && *s.Frontier[j-1].Priority < *c.Priority {
				t.Errorf("step %d: frontier not ordered by priority", i)
			}
		}
		if chosen != 1 {
			t.Errorf("step %d: %d chosen edges", i, chosen)
		}
	}
	if v.Nodes[1].Diff == "" || !strings.HasPrefix(v.Nodes[1].Diff, "--- node 0") {
		t.Errorf("node 1 diff = %q", v.Nodes[1].Diff)
	}
	if _, err := NewViewer(policytest.Exhaustive("x", 2, 2, policytest.FixAt(0, 1)), search.Result{Order: []corpusEdge{0}}); err == nil {
		t.Error("untraced result: nil error")
	}
}

func TestHTML(t *testing.T) {
	r := sample(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<svg", "test &lt;report&gt; &amp; co", `id="data"`, ">passrate</text>", "Success within B expansions", "data-render=\"pending\""} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<report>") {
		t.Error("title not escaped")
	}
	// The embedded JSON must not be able to close its script element.
	data := page[strings.Index(page, `id="data">`):]
	data = data[:strings.Index(data, "</script>")]
	if strings.Contains(data, "<") && strings.Contains(data[10:], "<") {
		t.Errorf("raw < inside the embedded JSON")
	}
	r.Viewer = nil
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	r.Policies = nil
	if err := WriteHTML(&b, r); err == nil {
		t.Error("no policies: nil error")
	}
}

// TestHTMLInChromium opens the report in headless Chromium through
// scripts/report/check.sh and fails on a script error. Skipped without
// chromium or under -short.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not installed (apt-get install -y chromium)")
	}
	script, err := filepath.Abs("../../../scripts/report/check.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		page   string
		wantOK bool
	}{
		{"report", "", true},
		{"broken script", "<!DOCTYPE html><html><head><script>window.onerror=function(){document.body.setAttribute('data-render','error')};</script></head><body data-render=\"pending\"><script>undefinedFunction();document.body.setAttribute('data-render','ok');</script></body></html>", false},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".html")
		page := []byte(c.page)
		if c.page == "" {
			var b bytes.Buffer
			if err := WriteHTML(&b, sample(t)); err != nil {
				t.Fatal(err)
			}
			page = b.Bytes()
		}
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		out, err := exec.CommandContext(ctx, script, path).CombinedOutput()
		cancel()
		if (err == nil) != c.wantOK {
			t.Errorf("%s: check.sh err = %v, want ok=%v\n%s", c.name, err, c.wantOK, out)
		}
	}
}
