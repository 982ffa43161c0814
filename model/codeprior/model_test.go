package codeprior

import (
	"math"
	"testing"
)

func TestEditedLines(t *testing.T) {
	for _, c := range []struct {
		name, parent, child string
		p, c                [2]int
	}{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", [2]int{2, 2}, [2]int{2, 2}},
		{"a line inserted", "a\nc\n", "a\nb\nc\n", [2]int{2, 1}, [2]int{2, 2}},
		{"a line deleted", "a\nb\nc\n", "a\nc\n", [2]int{2, 2}, [2]int{2, 1}},
		{"the same: empty ranges past the end", "a\nb\n", "a\nb\n", [2]int{4, 3}, [2]int{4, 3}},
		{"the first line", "x\nb\n", "y\nb\n", [2]int{1, 1}, [2]int{1, 1}},
		{"CRLF against LF is no change", "a\r\nb\r\n", "a\nb\n", [2]int{4, 3}, [2]int{4, 3}},
		{"two lines changed into three", "a\nb\nc\nd\n", "a\nx\ny\nz\nd\n", [2]int{2, 3}, [2]int{2, 4}},
	} {
		p, ch := EditedLines(c.parent, c.child)
		if p != c.p || ch != c.c {
			t.Errorf("%s: parent %v child %v, want %v %v", c.name, p, ch, c.p, c.c)
		}
	}
}

func TestApplyEdit(t *testing.T) {
	parent := "def f(n):\n    x = n - 1\n    return x - 1\n"
	for _, c := range []struct {
		name          string
		line          int
		before, after string
		want          string
		ok            bool
	}{
		{"on its line", 3, "x - 1", "x", "def f(n):\n    x = n - 1\n    return x\n", true},
		{"the first on the line, not in the program", 3, "- 1", "+ 1", "def f(n):\n    x = n - 1\n    return x + 1\n", true},
		{"the whole line", 2, "x = n - 1", "x = n", "def f(n):\n    x = n\n    return x - 1\n", true},
		{"not on that line: anywhere", 1, "- 1", "", "def f(n):\n    x = n \n    return x - 1\n", true},
		{"no line", 0, "return x", "return -x", "def f(n):\n    x = n - 1\n    return -x - 1\n", true},
		{"a line past the end", 9, "n - 1", "n", "def f(n):\n    x = n\n    return x - 1\n", true},
		{"nowhere", 2, "y", "z", parent, false},
		{"empty", 2, "", "z", parent, false},
	} {
		got, ok := ApplyEdit(parent, c.line, c.before, c.after)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestDefaultPrefersPython checks the shipped prior against what any prior
// of Python knows: the natural version of a line scores higher than a
// mutation of it of as many symbols, in its program and alone.
func TestDefaultPrefersPython(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Header(); h.Order < 4 || len(h.Sources) == 0 || len(h.TaskSets) == 0 || len(DefaultBytes()) > DefaultBudget {
		t.Fatalf("the default: order %d, %d sources, %d task sets, %d bytes", h.Order, len(h.Sources), len(h.TaskSets), len(DefaultBytes()))
	}
	parent := "def total(xs):\n    s = 0\n    for i in range(len(xs)):\n        s += xs[i]\n    return s\n"
	for _, c := range []struct{ name, child string }{
		{"a variable for the list", "def total(xs):\n    s = 0\n    for i in range(len(i)):\n        s += xs[i]\n    return s\n"},
		{"a comparison for the assignment", "def total(xs):\n    s == 0\n    for i in range(len(xs)):\n        s += xs[i]\n    return s\n"},
		{"return inside the loop", "def total(xs):\n    s = 0\n    for i in range(len(xs)):\n        s += xs[i]\n        return s\n"},
	} {
		f := m.EditFeatures(parent, c.child)
		if !(f.Lines < 0 && f.Program < 0) {
			t.Errorf("%s: the mutation is as likely as the original: %+v", c.name, f)
		}
		back := m.EditFeatures(c.child, parent)
		if math.Abs(back.Program+f.Program) > 1e-9 || math.Abs(back.Lines+f.Lines) > 1e-9 {
			t.Errorf("%s: undoing the edit is not the opposite change: %+v then %+v", c.name, f, back)
		}
	}
	if f := m.EditFeatures(parent, parent); f != (EditFeatures{ParentLines: [2]int{7, 6}, ChildLines: [2]int{7, 6}}) {
		t.Errorf("no edit: %+v", f)
	}
	good, bad := m.Line("    if a == b:"), m.Line("if a = b:")
	if !(good.Total > bad.Total) || good.Tokens[len(good.Tokens)-1].Symbol != symNL {
		t.Errorf("line scores %v (%d symbols) and %v", good.Total, len(good.Tokens), bad.Total)
	}
	sc := m.Program(parent)
	total, n := sc.Lines(1, 100)
	if n != len(sc.Tokens) || math.Abs(total-sc.Total) > 1e-9 || math.Abs(sc.Mean()*float64(n)-sc.Total) > 1e-9 {
		t.Errorf("lines 1..100 sum %v over %d symbols, the program %v over %d", total, n, sc.Total, len(sc.Tokens))
	}
}

func BenchmarkEditFeatures(b *testing.B) {
	m, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	parent := "def total(xs):\n    s = 0\n    for i in range(len(xs)):\n        s += xs[i]\n    return s\n"
	child := "def total(xs):\n    s = 0\n    for i in range(len(i)):\n        s += xs[i]\n    return s\n"
	for b.Loop() {
		m.EditFeatures(parent, child)
	}
}

func BenchmarkLoadDefault(b *testing.B) {
	for b.Loop() {
		if _, err := Load(DefaultBytes()); err != nil {
			b.Fatal(err)
		}
	}
}
