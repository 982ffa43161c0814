package mutate

import (
	"strings"
	"testing"
)

// mutants returns the programs family f makes of src.
func mutants(t *testing.T, src string, f Family) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, m := range Enumerate(src) {
		if m.Family != f {
			continue
		}
		got, err := Apply(src, m)
		if err != nil {
			t.Fatalf("Apply(%+v): %v", m, err)
		}
		out[got] = true
	}
	return out
}

func keys(m map[string]bool) string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	return strings.Join(s, "\n----\n")
}

// body wraps statements in a function so they are eligible for mutation.
func body(lines ...string) string {
	return "def f(a, b, n):\n    " + strings.Join(lines, "\n    ") + "\n"
}

func TestFamilies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		family Family
		src    string
		want   []string // programs that must be produced
		absent []string // programs that must not be
	}{
		{"cmp boundary", CmpOp, body("return a < b"), []string{body("return a <= b"), body("return a > b")}, []string{body("return a >= b")}},
		{"cmp eq", CmpOp, body("return a == b"), []string{body("return a != b")}, nil},
		{"cmp not in", CmpOp, body("return a not in b"), []string{body("return a in b")}, nil},
		{"cmp in", CmpOp, body("return a in b"), []string{body("return a not in b")}, nil},
		{"cmp for-in untouched", CmpOp, body("for x in b:", "    pass"), nil, []string{body("for x not in b:", "    pass")}},
		{"cmp is not", CmpOp, body("return a is not None"), []string{body("return a is None")}, nil},
		{"arith binary", ArithOp, body("return a - b"), []string{body("return a + b")}, nil},
		{"arith unary untouched", ArithOp, body("return -a"), nil, []string{body("return +a")}},
		{"arith star args untouched", ArithOp, body("return g(*a)"), nil, []string{body("return g(//a)")}},
		{"arith augmented", ArithOp, body("a += 1"), []string{body("a -= 1")}, nil},
		{"arith floor", ArithOp, body("return a // 2"), []string{body("return a / 2"), body("return a % 2")}, nil},
		{"bool and/or", BoolOp, body("return a and b"), []string{body("return a or b")}, nil},
		{"bool true", BoolOp, body("return True"), []string{body("return False")}, nil},
		{"bool drop not", BoolOp, body("x = not a"), []string{body("x = a")}, nil},
		{"const", Const, body("return a + 5"), []string{body("return a + 6"), body("return a + 4"), body("return a + 0"), body("return a + 1")}, nil},
		{"const zero", Const, body("return 0"), []string{body("return 1")}, []string{body("return -1")}},
		{"const hex untouched", Const, body("return 0x10"), nil, []string{body("return 0x11")}},
		{"range stop", OffByOne, body("for i in range(n):", "    pass"), []string{body("for i in range(n + 1):", "    pass"), body("for i in range(n - 1):", "    pass")}, nil},
		{"range drop", OffByOne, body("for i in range(1, n + 1):", "    pass"), []string{body("for i in range(1, n):", "    pass"), body("for i in range(1 + 1, n + 1):", "    pass")}, nil},
		{"slice bound", OffByOne, body("return a[b:n]"), []string{body("return a[b:n + 1]"), body("return a[b - 1:n]")}, nil},
		{"index", OffByOne, body("return a[len(a) - 1]"), []string{body("return a[len(a)]")}, nil},
		{"index wrap", OffByOne, body("return a[b if n else 0]"), []string{body("return a[(b if n else 0) + 1]")}, nil},
		{"list literal untouched", OffByOne, body("return [n]"), nil, []string{body("return [n + 1]")}},
		{"swap minus", SwapOperands, body("return a - b"), []string{body("return b - a")}, nil},
		{"swap cmp", SwapOperands, body("return a[0] < g(b)"), []string{body("return g(b) < a[0]")}, nil},
		{"swap precedence", SwapOperands, body("return n * a - b"), nil, []string{body("return n * b - a")}},
		{"swap args", SwapArgs, body("return g(a, b.x, 3)"), []string{body("return g(b.x, a, 3)"), body("return g(a, 3, b.x)")}, nil},
		{"swap kwargs untouched", SwapArgs, body("return g(a, key=b)"), nil, []string{body("return g(key=b, a)")}},
		{"wrong var", WrongVar, body("return a + b"), []string{body("return n + b"), body("return a + a")}, nil},
		{"wrong var attr untouched", WrongVar, body("return g.a"), nil, []string{body("return g.b")}},
		{"wrong var target untouched", WrongVar, body("a = b"), []string{body("a = n")}, []string{body("b = b")}},
		{"negate if", NegateCond, body("if a < b:", "    return 1"), []string{body("if not (a < b):", "    return 1")}, nil},
		{"negate simple", NegateCond, body("while a:", "    pass"), []string{body("while not a:", "    pass")}, nil},
		{"negate unwrap", NegateCond, body("if not (a < b):", "    return 1"), []string{body("if a < b:", "    return 1")}, nil},
		{"negate drop", NegateCond, body("elif not a:", "    return 1"), []string{body("elif a:", "    return 1")}, nil},
		{"delete", DeleteStmt, body("a = a + 1", "return a"), []string{body("pass", "return a")}, []string{body("a = a + 1", "pass")}},
		{"return none", ReturnValue, body("return a"), []string{body("return None")}, nil},
		{"return swap", ReturnValue, body("return a, b"), []string{body("return b, a"), body("return None")}, nil},
		{"return negate", ReturnValue, body("return a < b"), []string{body("return not (a < b)")}, nil},
		{"module level untouched", CmpOp, "x = 1 < 2\n", nil, []string{"x = 1 <= 2\n"}},
		{"strings opaque", CmpOp, body("return 'a < b' + '''x\n== y'''"), nil, []string{body("return 'a <= b' + '''x\n== y'''")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mutants(t, tc.src, tc.family)
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("missing mutant:\n%s\ngot:\n%s", w, keys(got))
				}
			}
			for _, a := range tc.absent {
				if got[a] {
					t.Errorf("unexpected mutant:\n%s", a)
				}
			}
		})
	}
}

func TestEveryFamilyOccurs(t *testing.T) {
	src := `def search(xs, target):
    lo, hi = 0, len(xs) - 1
    while lo <= hi and True:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = max(mid, lo) - 1
    return lo, hi
`
	seen := map[Family]int{}
	for _, m := range Enumerate(src) {
		seen[m.Family]++
		if _, err := Apply(src, m); err != nil {
			t.Errorf("Apply(%+v): %v", m, err)
		}
	}
	for _, f := range Families {
		if seen[f] == 0 {
			t.Errorf("family %s produced nothing", f)
		}
	}
}

func TestApplyChecks(t *testing.T) {
	src := "def f(x):\n    return x < 1\n"
	good := Mutation{Family: CmpOp, Start: 23, End: 24, Orig: "<", Repl: "<="}
	for _, tc := range []struct {
		name string
		m    Mutation
		want string
		err  bool
	}{
		{"ok", good, "def f(x):\n    return x <= 1\n", false},
		{"stale", Mutation{Family: CmpOp, Start: 23, End: 24, Orig: ">", Repl: "<="}, "", true},
		{"out of range", Mutation{Family: CmpOp, Start: 40, End: 41, Orig: "<", Repl: "<="}, "", true},
		{"negative", Mutation{Family: CmpOp, Start: -1, End: 1, Orig: "d", Repl: "x"}, "", true},
		{"no-op", Mutation{Family: CmpOp, Start: 23, End: 24, Orig: "<", Repl: "<"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(src, tc.m)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("Apply = %q, %v", got, err)
			}
		})
	}
	m, err := ParseMutation(good.Marshal())
	if err != nil || m.Start != good.Start || m.Repl != good.Repl || m.Family != good.Family {
		t.Fatalf("round trip: %+v, %v", m, err)
	}
	for _, bad := range []string{"", "{", `{"family":"nope"}`, `{"family":"cmp_op","extra":1}`, `[]`} {
		if _, err := ParseMutation(bad); err == nil {
			t.Errorf("ParseMutation(%q): want error", bad)
		}
	}
}

// FuzzApply checks, on arbitrary source, that enumerating and applying
// mutations never panics, that every enumerated mutation applies, and that
// the result differs from the input only inside the declared span. Arbitrary
// (possibly stale) mutations either fail or splice exactly.
func FuzzApply(f *testing.F) {
	for _, s := range []string{
		"def f(a, b):\n    return a[b:] < b - 1\n",
		"def g(x):\n    if not (x):\n        x += f(x, 2)\n    return x, 1\n",
		"def h(s):\n    return f\"{s['a']}\" == '''\n'''\n",
		"def k(\n", "def k():\n  return (]\n", "def k():\n\treturn a[\n",
	} {
		f.Add(s, 3, 5, "x")
	}
	f.Fuzz(func(t *testing.T, src string, start, end int, repl string) {
		for _, m := range Enumerate(src) {
			got, err := Apply(src, m)
			if err != nil {
				t.Fatalf("enumerated mutation does not apply: %+v: %v", m, err)
			}
			checkSplice(t, src, got, m)
		}
		m := Mutation{Family: CmpOp, Start: start, End: end, Repl: repl}
		if start >= 0 && end >= start && end <= len(src) {
			m.Orig = src[start:end]
		}
		got, err := Apply(src, m)
		if err == nil {
			checkSplice(t, src, got, m)
		}
	})
}

func checkSplice(t *testing.T, src, got string, m Mutation) {
	t.Helper()
	if got == src {
		t.Fatalf("mutation %+v left the program unchanged", m)
	}
	if got[:m.Start] != src[:m.Start] || got[len(got)-(len(src)-m.End):] != src[m.End:] {
		t.Fatalf("mutation %+v changed text outside its span", m)
	}
	if got[m.Start:len(got)-(len(src)-m.End)] != m.Repl {
		t.Fatalf("mutation %+v: span holds %q", m, got[m.Start:len(got)-(len(src)-m.End)])
	}
}
