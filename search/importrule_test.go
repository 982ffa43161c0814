package search_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// importRule lists, per package family, the packages of this module it may
// import (docs/design.md, "The import rule"; each package's doc comment
// says the same). "x/..." admits x and everything below it; "x" admits x
// only. A package takes the rule of its longest matching family. Test
// files are not checked: tests may import helpers such as policytest.
var importRule = []struct {
	family string
	allow  []string
}{
	{"triage/checkpoints", nil},
	// corpus holds the shared types; its subpackages do one job each and
	// build on one another one way: limits and shard on corpus alone,
	// manifest on them, the builder and the statistics on the manifest,
	// conversion on the builder's input checks.
	{"triage/corpus", nil},
	{"triage/corpus/...", []string{"triage/corpus/..."}},
	{"triage/corpus/limits", []string{"triage/corpus"}},
	{"triage/corpus/shard", []string{"triage/corpus"}},
	{"triage/corpus/manifest", []string{"triage/corpus", "triage/corpus/limits", "triage/corpus/shard"}},
	{"triage/corpus/build", []string{"triage/corpus", "triage/corpus/limits", "triage/corpus/shard", "triage/corpus/manifest"}},
	{"triage/corpus/build/buildtest", []string{"triage/corpus", "triage/corpus/shard", "triage/corpus/build", "triage/corpus/corpustest"}},
	{"triage/corpus/stats", []string{"triage/corpus", "triage/corpus/limits", "triage/corpus/shard", "triage/corpus/manifest"}},
	{"triage/corpus/corpustest", []string{"triage/corpus"}},
	{"triage/model/...", []string{"triage/model/..."}},
	{"triage/policy/...", []string{"triage/corpus", "triage/model/priority", "triage/policy/..."}},
	// The engine: the frontier, the ask–tell session, replay and live
	// environments. model/priority only for the distributions a trace
	// records (policy.DistReporter's type).
	{"triage/search", []string{"triage/corpus", "triage/policy", "triage/model/priority"}},
	// The sandbox starts with a build's time limits (their measure).
	{"triage/search/sandbox", []string{"triage/corpus", "triage/corpus/limits", "triage/model/tokenizer"}},
	{"triage/search/proposer/...", []string{"triage/corpus", "triage/model/tokenizer", "triage/search/proposer/..."}},
	{"triage/search/eval/...", []string{"triage/corpus", "triage/corpus/shard", "triage/policy", "triage/model/priority", "triage/search", "triage/search/eval/..."}},
	// TSAPR asks an LLM for patches through the openai proposer's client.
	{"triage/search/tsapr", []string{"triage/corpus", "triage/policy", "triage/model/priority", "triage/search", "triage/search/proposer/..."}},
	// Live search over a task set: the engine with a proposer, TSAPR, the
	// sandbox its programs run in, eval's policy construction (the same
	// policies eval replays), and the report's diffs.
	{"triage/search/live", []string{"triage/corpus", "triage/corpus/build", "triage/corpus/limits", "triage/corpus/manifest",
		"triage/corpus/shard", "triage/policy", "triage/model/priority", "triage/search",
		"triage/search/proposer/...", "triage/search/tsapr", "triage/search/sandbox", "triage/search/eval/..."}},
	{"triage/search/serve/api", []string{"triage/corpus", "triage/model/priority", "triage/policy"}},
	{"triage/search/serve/...", []string{"triage/corpus", "triage/corpus/shard", "triage/policy", "triage/model/priority", "triage/search", "triage/search/serve/..."}},
	// train trains: replay validation through eval, no report.
	{"triage/train", []string{"triage/model/...", "triage/corpus", "triage/corpus/shard", "triage/policy", "triage/search", "triage/search/eval"}},
	// The experiments (cv, leave one dataset out) train and render their
	// pooled results with eval's report.
	{"triage/train/experiment", []string{"triage/model/...", "triage/corpus", "triage/policy", "triage/search",
		"triage/search/eval/...", "triage/train"}},
	// What train's tests and the experiments' tests share.
	{"triage/train/traintest", []string{"triage/corpus", "triage/model/..."}},
	{"triage/cmd/...", []string{"triage/..."}},
	// Development tools (a fake OpenAI server); never cmd.
	{"triage/scripts/...", []string{"triage/corpus/...", "triage/model/...", "triage/policy/...", "triage/search/..."}},
}

// match reports whether pattern admits pkg.
func match(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// ruleFor returns the allowed imports of pkg: the rule of its longest
// matching family.
func ruleFor(pkg string) ([]string, bool) {
	best, found := -1, false
	var allow []string
	for _, r := range importRule {
		if match(r.family, pkg) && len(r.family) > best {
			best, allow, found = len(r.family), r.allow, true
		}
	}
	return allow, found
}

// TestImportRule fails on an import of this module's packages that the
// rule does not admit, on a package the rule does not cover, and on any
// import of cmd.
func TestImportRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "triage/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Skipf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		allow, ok := ruleFor(p.ImportPath)
		if !ok {
			t.Errorf("%s: no import rule covers this package; add one to importRule and docs/design.md", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !match("triage/...", imp) {
				continue
			}
			if match("triage/cmd/...", imp) {
				t.Errorf("%s imports %s: nothing imports cmd", p.ImportPath, imp)
				continue
			}
			admitted := false
			for _, a := range allow {
				admitted = admitted || match(a, imp)
			}
			if !admitted {
				t.Errorf("%s imports %s, against the import rule (it may import %v)", p.ImportPath, imp, allow)
			}
		}
	}
	if n < 20 {
		t.Errorf("go list found %d packages", n)
	}
}

func TestImportRuleMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"triage/search", "triage/search", true},
		{"triage/search", "triage/search/eval", false},
		{"triage/search/...", "triage/search", true},
		{"triage/search/...", "triage/search/eval", true},
		{"triage/search/...", "triage/searchx", false},
	} {
		if got := match(c.pattern, c.pkg); got != c.want {
			t.Errorf("match(%q, %q) = %v", c.pattern, c.pkg, got)
		}
	}
	if allow, _ := ruleFor("triage/search/serve/api"); len(allow) != 3 {
		t.Errorf("serve/api takes the serve rule: %v", allow)
	}
}
