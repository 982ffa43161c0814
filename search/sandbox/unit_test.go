package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"triage/corpus"
)

func intp(i int) *int { return &i }

func TestBuildExecution(t *testing.T) {
	o := DefaultOptions()
	collected := wireEvent{T: "collected", Names: []string{"test_solution.py::test_a", "test_solution.py::T::test_b[1-2]"}}
	pass := wireEvent{T: "test", Name: "test_solution.py::test_a", Passed: true, DurMS: 1}
	fail := wireEvent{T: "test", Name: "test_solution.py::T::test_b[1-2]", Msg: "assert 1 == 2", Text: "E   assert 1 == 2"}
	done := wireEvent{T: "done", Exit: intp(1)}
	cases := []struct {
		name     string
		resp     wireResponse
		status   corpus.Status
		passRate float64
		tests    int
		feedback string
	}{
		{"ok mixed", wireResponse{Events: []wireEvent{collected, pass, fail, done}}, corpus.StatusOK, 0.5, 2, "FAILED T::test_b[1-2] - assert 1 == 2"},
		{"all pass", wireResponse{Events: []wireEvent{{T: "collected", Names: []string{"test_solution.py::test_a"}}, pass, {T: "done", Exit: intp(0)}}}, corpus.StatusOK, 1, 1, "1 passed"},
		{"collect error", wireResponse{Events: []wireEvent{{T: "collect_error", NodeID: "test_solution.py", Text: "ImportError: x"}, {T: "collected"}, {T: "done", Exit: intp(2)}}}, corpus.StatusLoadError, 0, 0, "ImportError: x"},
		{"crash mid run", wireResponse{Events: []wireEvent{collected, pass}, Signal: intp(11)}, corpus.StatusCrash, 0, 2, "while running T::test_b[1-2]"},
		{"crash at import", wireResponse{Exit: intp(3)}, corpus.StatusCrash, 0, 0, "while importing"},
		{"timeout", wireResponse{Events: []wireEvent{collected, pass}, TimedOut: true}, corpus.StatusTimeout, 0, 2, "TIMEOUT"},
		{"cpu limit", wireResponse{Events: []wireEvent{collected}, Signal: intp(int(syscall.SIGXCPU))}, corpus.StatusTimeout, 0, 2, "CPU time"},
		{"output limit", wireResponse{Events: []wireEvent{collected, pass, fail, {T: "done", Exit: intp(1), OutputLimit: true}}}, corpus.StatusOutput, 0, 2, "OUTPUT LIMIT"},
		{"internal error", wireResponse{Events: []wireEvent{collected, {T: "internal", Text: "boom"}, {T: "done", Exit: intp(3)}}}, corpus.StatusCrash, 0, 2, "boom"},
		{"no tests", wireResponse{Events: []wireEvent{{T: "collected"}, {T: "done", Exit: intp(5)}}}, corpus.StatusOK, 0, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := buildExecution(tc.resp, o, expectation{})
			if ex.Status != tc.status || ex.PassRate != tc.passRate || len(ex.Tests) != tc.tests {
				t.Fatalf("status %s pass %v tests %d, want %s %v %d", ex.Status, ex.PassRate, len(ex.Tests), tc.status, tc.passRate, tc.tests)
			}
			if !strings.Contains(ex.Feedback, tc.feedback) {
				t.Errorf("feedback lacks %q:\n%s", tc.feedback, ex.Feedback)
			}
			if len(ex.Tests) == 0 && ex.FailedFrac != 1 {
				t.Errorf("failed frac %v with no tests", ex.FailedFrac)
			}
		})
	}
}

func TestTruncateFeedback(t *testing.T) {
	for _, tc := range []struct {
		in  string
		max int
	}{{"short", 100}, {strings.Repeat("é", 5000), 4000}, {strings.Repeat("abc\n", 3000), 200}, {strings.Repeat("x", 50), 10}} {
		got := truncateFeedback(tc.in, tc.max)
		if !utf8.ValidString(got) {
			t.Errorf("invalid utf-8")
		}
		n := utf8.RuneCountInString(tc.in)
		if n <= tc.max && got != tc.in {
			t.Errorf("short text changed")
		}
		if n > tc.max {
			if utf8.RuneCountInString(got) > tc.max && tc.max >= 60 {
				t.Errorf("%d runes > %d", utf8.RuneCountInString(got), tc.max)
			}
			if !strings.Contains(got, "feedback truncated") {
				t.Errorf("no truncation note")
			}
		}
	}
}

func TestParseJUnit(t *testing.T) {
	xml := `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4">
<testcase classname="test_solution" name="test_a[1-2]" time="0.001"/>
<testcase classname="test_solution" name="test_b" time="0.002"><failure message="assert 1 == 2">E assert</failure></testcase>
<testcase classname="test_solution.TestX" name="test_c" time="0.1"/>
<testcase classname="test_solution" name="test_d" time="0"><skipped type="pytest.skip" message="nope"/></testcase>
</testsuite></testsuites>`
	cases, collectErr, err := ParseJUnit([]byte(xml))
	if err != nil || collectErr {
		t.Fatalf("err %v collectErr %v", err, collectErr)
	}
	want := []JUnitCase{{"test_a[1-2]", true, 0.001, ""}, {"test_b", false, 0.002, "assert 1 == 2"}, {"TestX::test_c", true, 0.1, ""}, {"test_d", false, 0, "nope"}}
	if len(cases) != len(want) {
		t.Fatalf("got %+v", cases)
	}
	for i := range want {
		if cases[i] != want[i] {
			t.Errorf("case %d: %+v, want %+v", i, cases[i], want[i])
		}
	}
	collect := `<testsuites><testsuite><testcase classname="" name="test_solution" time="0.1"><error message="collection failure">ImportError</error></testcase></testsuite></testsuites>`
	cases, collectErr, err = ParseJUnit([]byte(collect))
	if err != nil || !collectErr || len(cases) != 0 {
		t.Errorf("collection error: cases %v collectErr %v err %v", cases, collectErr, err)
	}
	if _, _, err := ParseJUnit([]byte("<html/>")); err == nil {
		t.Error("no error for a non-junit root")
	}
	if _, _, err := ParseJUnit([]byte("<testsuites><")); err == nil {
		t.Error("no error for broken xml")
	}
}

func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(`<testsuites><testsuite><testcase classname="test_solution" name="t"/></testsuite></testsuites>`))
	f.Add([]byte(`<testsuite><testcase classname="" name="test_solution"><error/></testcase></testsuite>`))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, _, err := ParseJUnit(data)
		if err != nil && cases != nil {
			t.Fatalf("cases with an error")
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	var buf bytes.Buffer
	_ = writeFrame(&buf, wireResponse{ID: 7, Events: []wireEvent{{T: "collected", Names: []string{"a"}}, {T: "done", Exit: intp(0)}}})
	f.Add(buf.Bytes())
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := readFrame(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever decodes must build an Execution without panicking.
		ex := buildExecution(resp, DefaultOptions(), expectation{})
		if ex.PassRate < 0 || ex.PassRate > 1 || (len(ex.Tests) == 0 && ex.FailedFrac != 1) {
			t.Fatalf("bad rates %v %v", ex.PassRate, ex.FailedFrac)
		}
	})
}

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := wireResponse{ID: 42, TimedOut: true, Events: []wireEvent{{T: "test", Name: "n", Lines: []int32{1, 3}}}}
	if err := writeFrame(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := readFrame(&buf)
	if err != nil || out.ID != 42 || !out.TimedOut || len(out.Events) != 1 || out.Events[0].Lines[1] != 3 {
		t.Fatalf("round trip: %+v %v", out, err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{0x7f, 0, 0, 0})); err == nil {
		t.Error("oversized frame accepted")
	}
}

func TestOwnerPID(t *testing.T) {
	for _, tc := range []struct {
		name, prefix string
		pid          int
		ok           bool
	}{
		{"123-4", "", 123, true},
		{"triage-sandbox-77-123456", "triage-sandbox-", 77, true},
		{"triage-sandbox-123456", "triage-sandbox-", 0, false},
		{"other-1-2", "triage-sandbox-", 0, false},
		{"x-1", "", 0, false},
		{"-1-2", "", 0, false},
	} {
		pid, ok := ownerPID(tc.name, tc.prefix)
		if pid != tc.pid && tc.ok || ok != tc.ok {
			t.Errorf("ownerPID(%q) = %d %v, want %d %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}

// FuzzBuildExecution feeds arbitrary worker responses to buildExecution:
// no panic, and the Execution's numbers stay consistent.
func FuzzBuildExecution(f *testing.F) {
	f.Add([]byte(`{"events":[{"t":"collected","names":["test_solution.py::test_a"]},{"t":"test","name":"test_solution.py::test_a","passed":true},{"t":"done","exit":0}]}`), true)
	f.Add([]byte(`{"events":[{"t":"program_ended"},{"t":"test","name":"a","passed":true},{"t":"test","name":"a"}]}`), false)
	f.Add([]byte(`{"events":[{"t":"collected","names":["x","y"]},{"t":"test","name":"z","passed":true},{"t":"done","exit":0}]}`), true)
	f.Fuzz(func(t *testing.T, run []byte, known bool) {
		var resp wireResponse
		if json.Unmarshal(run, &resp) != nil {
			return
		}
		exp := expectation{known: known, ids: []string{"test_solution.py::test_a"}}
		o := DefaultOptions()
		for _, ex := range []corpus.Execution{buildExecution(resp, o, exp)} {
			if ex.PassRate < 0 || ex.PassRate > 1 || ex.FailedFrac < 0 || ex.FailedFrac > 1 {
				t.Fatalf("pass rate %v failed frac %v", ex.PassRate, ex.FailedFrac)
			}
			if ex.Status != corpus.StatusOK && ex.PassRate != 0 {
				t.Fatalf("status %s with pass rate %v", ex.Status, ex.PassRate)
			}
			if len(ex.Tests) > 0 && math.Abs(ex.PassRate+ex.FailedFrac-1) > 1e-9 {
				t.Fatalf("pass rate %v + failed frac %v", ex.PassRate, ex.FailedFrac)
			}
			if ex.Status == corpus.StatusTamper && !strings.HasPrefix(ex.Feedback, "TAMPER:") {
				t.Fatalf("tamper feedback %q", ex.Feedback)
			}
		}
	})
}

// TestVerdictSettingsNameTheHarness: the settings a corpus's manifest
// records name the harness by a digest of all of its files as they lie in
// this folder, so that an edit of any of them refuses a resume.
func TestVerdictSettingsNameTheHarness(t *testing.T) {
	h := sha256.New()
	names, err := filepath.Glob("*.py")
	if err != nil || len(names) != len(workerFileNames) {
		t.Fatalf("harness files %v (err %v), embedded %v", names, err, workerFileNames)
	}
	for _, name := range workerFileNames {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	want := hex.EncodeToString(h.Sum(nil))
	if got := DefaultOptions().VerdictSettings()["harness_sha256"]; got != want {
		t.Errorf("harness_sha256 %q, want %q", got, want)
	}
}
