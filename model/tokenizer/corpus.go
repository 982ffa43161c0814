package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SyntheticCorpus returns about size bytes of Python code and pytest output
// (tracebacks, assertion diffs, session summaries), the kind of text the
// priority model reads. It is deterministic (fixed seed) so benchmark
// figures are comparable between runs and machines.
func SyntheticCorpus(size int) string {
	r := rand.New(rand.NewPCG(0x7269616765, 1))
	names := []string{"total", "items", "result", "count", "value", "index", "node", "left", "right",
		"matrix", "prices", "words", "freq", "memo", "stack", "queue", "graph", "visited", "dp", "target"}
	funcs := []string{"two_sum", "merge_intervals", "longest_palindrome", "is_valid", "max_profit",
		"count_islands", "flatten", "rotate_matrix", "word_break", "min_path_sum", "parse_config"}
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	var b strings.Builder
	for b.Len() < size {
		f, x, y, z := pick(funcs), pick(names), pick(names), pick(names)
		n, m := r.IntN(1000), r.IntN(50)
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "def %s(%s, %s=None):\n    \"\"\"Return the %s of %s.\"\"\"\n    %s = {}\n"+
				"    for i, %s in enumerate(%s):\n        if %s in %s and %s[%s] > %d:\n"+
				"            return [%s[%s], i]\n        %s[%s] = i\n    return []\n\n\n",
				f, x, y, z, x, z, y, x, y, z, z, y, n, z, y, z, y)
		case 1:
			fmt.Fprintf(&b, "class %sSolver:\n    def __init__(self, %s: list[int], k: int = %d) -> None:\n"+
				"        self.%s = sorted(%s)\n        self.k = k  # window size\n\n"+
				"    def solve(self) -> int:\n        lo, hi = 0, len(self.%s) - 1\n"+
				"        while lo < hi:\n            mid = (lo + hi) // 2\n"+
				"            if self.%s[mid] < self.k:\n                lo = mid + 1\n"+
				"            else:\n                hi = mid\n        return lo\n\n",
				strings.ToUpper(f[:1])+f[1:], x, m, x, x, x, x)
		case 2:
			fmt.Fprintf(&b, "Traceback (most recent call last):\n  File \"/tmp/sandbox/solution.py\", line %d, in %s\n"+
				"    return %s[%s] + %s(%s[1:])\n           ~~~~~~~~^^^^^^^^\n"+
				"IndexError: list index out of range\n", m+3, f, x, y, f, x)
		case 3:
			fmt.Fprintf(&b, "____________________________ test_%s[case%d] ____________________________\n\n"+
				"    def test_%s():\n>       assert %s([%d, %d, %d], %d) == [%d, %d]\nE       assert [] == [0, 1]\n"+
				"E         Right contains 2 more items, first extra item: 0\nE         Use -v to get more diff\n\n"+
				"tests/test_solution.py:%d: AssertionError\n", f, m, f, f, n, m, n+m, n*2, m%3, m%5, 10+m)
		default:
			fmt.Fprintf(&b, "============================= test session starts ==============================\n"+
				"platform linux -- Python 3.11.2, pytest-7.4.0, pluggy-1.2.0\nrootdir: /tmp/sandbox\ncollected %d items\n\n"+
				"tests/test_solution.py ..F.F.                                           [100%%]\n"+
				"FAILED tests/test_solution.py::test_%s - AssertionError: assert %d == %d\n"+
				"========================= %d failed, %d passed in 0.%02ds =========================\n",
				m+2, f, n, n+1, m%4+1, m+1, m)
		}
	}
	return b.String()
}

// PathologicalInputs returns long adversarial texts shaped like the
// reference fixtures (testdata/patho.json): one huge whitespace, letter,
// newline or CJK piece, and random base64. Each should encode in well under
// 100 ms; `triage bench tokenizer` times them. Deterministic.
func PathologicalInputs() map[string]string {
	r := rand.New(rand.NewPCG(0x70617468, 2))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	base64 := make([]byte, 200_000)
	for i := range base64 {
		base64[i] = b64[r.IntN(len(b64))]
	}
	var cjk strings.Builder
	for range 33_000 {
		cjk.WriteRune(rune(0x4E00 + r.IntN(0x9FFF-0x4E00)))
	}
	return map[string]string{
		"spaces_50k":   strings.Repeat(" ", 50_000) + "x",
		"letters_50k":  strings.Repeat("a", 50_000),
		"newlines_50k": strings.Repeat("\n", 50_000),
		"base64_200k":  string(base64),
		"cjk_100k":     cjk.String(),
	}
}
