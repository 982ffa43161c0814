package sandbox

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"triage/corpus"
)

// attack is one of issue 40's shapes of a wrong program that passes plain
// pytest: a value that lies to the test, or a program that changes what the
// test checks with. disarmed is the same program with the trick taken
// out: its wrong answer plain to see. Both must fail in the sandbox, where
// the test runs in a judge that never runs the program's code and values
// cross as data; the attack must pass plain pytest (it is a real one).
type attack struct {
	name, program, disarmed, tests string
}

var attacks = []attack{
	{name: "equal only the first time asked",
		program: `class _Once:
    asked = False

    def __eq__(self, other):
        first = not _Once.asked
        _Once.asked = True
        return first


def add(a, b):
    return _Once()
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
	{name: "equal only to even integers",
		program: `class _Even:
    def __eq__(self, other):
        return type(other) is int and other % 2 == 0


def add(a, b):
    return _Even()
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "from solution import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n    assert add(2, 2) == 4\n"},
	{name: "a truth test that raises once, then says true",
		program: `class _Answer:
    raised = False

    def __bool__(self):
        if not _Answer.raised:
            _Answer.raised = True
            raise TypeError("not now")
        return True


class _Value:
    def __eq__(self, other):
        return _Answer()


try:
    bool(_Value() == 0)
except TypeError:
    pass


def add(a, b):
    return _Value()
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"},
	{name: "a difference whose abs() is 0.0 but is no number",
		program: `class _Diff:
    def __abs__(self):
        return 0.0


class _Value:
    def __sub__(self, other):
        return _Diff()


def add(a, b):
    return _Value()
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "from solution import add\n\n\ndef test_add():\n    assert abs(add(0.1, 0.2) - 0.3) < 1e-9\n"},
	{name: "reassigns its own __class__ during __eq__ to a trusted type",
		program: `class _Trusted(int):
    pass


class _Shifty:
    def __eq__(self, other):
        self.__class__ = _Mask
        return True


class _Mask(_Shifty):
    pass


def add(a, b):
    return _Shifty()
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "from solution import add\n\n\ndef test_add():\n    r = add(1, 2)\n    assert r == 3\n"},
	{name: "a container too large to check, so in goes unjudged",
		program: `class _Any:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def evens(n):
    return [_Any()] * 300001
`,
		disarmed: "def evens(n):\n    return [x for x in range(n) if x % 2 == 1]\n",
		tests:    "from solution import evens\n\n\ndef test_evens():\n    assert 4 in evens(10)\n    assert 8 in evens(10)\n"},
	{name: "replaces statistics.median, the test's oracle",
		program: `import statistics

statistics.median = lambda xs: 42


def middle(xs):
    return 42
`,
		disarmed: "def middle(xs):\n    return 42\n",
		tests:    "import statistics\nfrom solution import middle\n\n\ndef test_middle():\n    assert middle([3, 1, 2]) == statistics.median([3, 1, 2])\n"},
	{name: "replaces json's decoder, the test's oracle",
		program: `import json
import json.decoder

_real = json.decoder.JSONDecoder.decode
json.decoder.JSONDecoder.decode = lambda self, s, *a, **k: {"a": [1, 2]} if s.startswith("GARBAGE") else _real(self, s, *a, **k)


def to_json(x):
    return "GARBAGE"
`,
		disarmed: "def to_json(x):\n    return \"GARBAGE\"\n",
		tests:    "import json\nfrom solution import to_json\n\n\ndef test_round_trip():\n    assert json.loads(to_json({\"a\": [1, 2]})) == {\"a\": [1, 2]}\n"},
	{name: "replaces collections.Counter.__eq__, the test's oracle",
		program: `import collections

collections.Counter.__eq__ = lambda self, other: True


def count_words(s):
    return {"wrong": 1}
`,
		disarmed: "def count_words(s):\n    return {\"wrong\": 1}\n",
		tests:    "from collections import Counter\nfrom solution import count_words\n\n\ndef test_count():\n    assert Counter(count_words(\"a b a\")) == Counter({\"a\": 2, \"b\": 1})\n"},
	{name: "finds pytest through object.__subclasses__() and switches its checks off",
		program: `def _all(cls, seen):
    for sub in type.__subclasses__(cls):
        if sub not in seen:
            seen.add(sub)
            _all(sub, seen)
    return seen


for _cls in list(_all(object, set())):
    if _cls.__name__ == "Function" and _cls.__module__ == "_pytest.python":
        _cls.runtest = lambda self: None


def add(a, b):
    return a - b
`,
		disarmed: "def add(a, b):\n    return a - b\n",
		tests:    "import pytest\nfrom solution import add\n\n\n@pytest.mark.parametrize('a, b', [(1, 2)])\ndef test_add(a, b):\n    assert add(a, b) == 3\n"},
	{name: "rewrites the expected value through the __globals__ of the test's lambda",
		program: `def sort_by(xs, key):
    key.__globals__["EXPECTED"] = list(xs)
    return list(xs)
`,
		disarmed: "def sort_by(xs, key):\n    return list(xs)\n",
		tests:    "from solution import sort_by\n\nEXPECTED = [1, 2, 3]\n\n\ndef test_sort():\n    assert sort_by([3, 1, 2], lambda x: x) == EXPECTED\n"},
}

// runnerPools starts two pools of o, closed when t ends: one with the direct
// runner, one whose judge runs every file with pytest (under uid base
// pytestUIDBase, 0 for o's).
func runnerPools(t *testing.T, o Options, pytestUIDBase int) (direct, viaPytest *Pool) {
	t.Helper()
	direct, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close() })
	o.UIDBase, o.disabled = pytestUIDBase, layerSet{layerDirect: true}
	viaPytest, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { viaPytest.Close() })
	return direct, viaPytest
}

// TestAttacksOnTheJudge: every shape of attacks passes plain pytest (the
// attack is real) and fails in the sandbox, as its disarmed twin does,
// through pytest's run and the direct runner alike; none leaves a process.
func TestAttacksOnTheJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile programs are skipped in -short mode")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	direct, viaPytest := runnerPools(t, Options{Workers: 1, Timeout: 10 * time.Second, UIDBase: advUIDBase + 3},
		advUIDBase+4)
	for _, need := range []string{"two-process", "fork-server", "uid-drop"} {
		if !slices.Contains(direct.Protections(), need) {
			t.Skipf("protection %s unavailable here (have %v)", need, direct.Protections())
		}
	}
	plain := PerProcess{Timeout: 60 * time.Second}
	ctx := context.Background()
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			ex, err := plain.Run(ctx, a.program, a.tests)
			if err != nil || !ex.Solved() {
				t.Fatalf("the attack does not pass plain pytest (err %v, %s):\n%s", err, ex.Status, ex.Feedback)
			}
			for _, side := range []struct {
				label string
				pool  *Pool
			}{{"direct runner", direct}, {"pytest's run", viaPytest}} {
				for _, prog := range []struct{ label, text string }{{"attack", a.program}, {"disarmed", a.disarmed}} {
					ex, err := side.pool.Run(ctx, prog.text, a.tests)
					if err != nil {
						t.Fatalf("%s, %s: %v", side.label, prog.label, err)
					}
					if ex.Solved() || ex.Status == corpus.StatusOK && ex.PassRate == 1 {
						t.Errorf("%s, %s: solved; feedback:\n%s", side.label, prog.label, ex.Feedback)
					}
					t.Logf("%s, %s: %s %s", side.label, prog.label, ex.Status, firstLines(ex.Feedback, 2))
				}
			}
			for _, uid := range []int{advUIDBase + 3, advUIDBase + 4} {
				if left := processesOfUID(uid); len(left) > 0 {
					t.Errorf("processes left as uid %d: %v", uid, left)
				}
			}
		})
	}
}
