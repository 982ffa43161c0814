package codeprior

import "testing"

func TestWindowOverlap(t *testing.T) {
	ref := `def running_max(values):
    best = values[0]
    for v in values:
        if v > best:
            best = v
    return best
`
	for _, c := range []struct {
		name, file string
		want       bool
	}{
		{"the same code", ref, true},
		{"renamed, recommented, re-spaced", `# a helper
def top(xs):   # the largest
    m = xs[0]

    for x in xs:
        if x>m:
            m = x  # keep it
    return m
`, true},
		{"three lines inside a larger file", `import os

class Thing:
    def largest(self, items):
        cur = items[0]
        for it in items:
            if it > cur:
                cur = it
        return cur
`, true},
		{"trivial lines between do not break a window", `def f(a):
    try:
        b = a[0]
    finally:
        pass
    for c in a:
        return c
`, true},
		{"another literal of the same kind still matches", `def g(q):
    r = q[5]
    for s in q:
        return s
`, false}, // 0 is kept as itself: q[5] is <int>, values[0] is 0
		{"two shared lines are not enough", `def h(values):
    best = values[0]
    return best
`, false},
		{"boilerplate bindings make no window", `class P:
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z
`, false},
		{"another operator", `def running_min(values):
    best = values[0]
    for v in values:
        if v < best:
            best = v
`, true}, // the first three lines still match
		{"another kept name", `def k(values):
    best = sorted(values)
    for v in values:
        print(v)
`, false},
		{"the same shape with attributes renamed", `def m(self):
    best = self.vals[0]
    for v in self.vals:
        pass
`, false},
	} {
		hit := false
		refWins := map[uint64]bool{}
		for _, w := range Windows(ref) {
			refWins[w] = true
		}
		for _, w := range Windows(c.file) {
			hit = hit || refWins[w]
		}
		if hit != c.want {
			t.Errorf("%s: overlap %v, want %v", c.name, hit, c.want)
		}
	}
}

func TestTrivialLines(t *testing.T) {
	for _, c := range []struct {
		line    string
		trivial bool
	}{
		{"pass", true}, {"return", true}, {"else:", true}, {")", true}, {"]):", true},
		{`"""A docstring."""`, true}, {"break", true}, {"try:", true}, {"x", true},
		{"return 0", true}, {"return x", true}, {"return self.best", true}, {"raise ValueError", true},
		{"import os", true}, {"self.items = items", true}, {"n = 0", true}, {"x = y.z", true},
		{"NAME = 'text'", true}, {"seen = []", true}, {"self.memo = {}", true}, {"@property", true}, {"@functools.total_ordering", true},
		{"return x + 1", false}, {"raise ValueError('no')", false}, {"print()", false},
		{"x = y[0]", false}, {"x = -1", false}, {"a, b = b, a", false}, {"from os import path", false},
		{"@lru_cache(maxsize=None)", false}, {"class A:", false}, {"def f(self):", false},
		{"for x in xs:", false}, {"if done:", false}, {"x += 1", false}, {"import os, sys", false},
	} {
		lines := normalizedLines(c.line + "\n")
		if got := len(lines) == 0; got != c.trivial {
			t.Errorf("%q: trivial %v, want %v", c.line, got, c.trivial)
		}
	}
}

func TestWindowsOfShortPrograms(t *testing.T) {
	if w := Windows("def f(x):\n    return x * 2\n"); len(w) != 0 {
		t.Errorf("two non-trivial lines: %d windows, want 0", len(w))
	}
	if w := Windows("a = f(1)\nb = g(2)\nc = a + b\nd = c * 2\n"); len(w) != 2 {
		t.Errorf("four non-trivial lines: %d windows, want 2", len(w))
	}
}
