package pylex

import (
	"strings"
	"testing"
)

// render shows the significant tokens as "Kind:text" joined by spaces.
func render(src string) string {
	var parts []string
	for _, t := range Tokenize(src) {
		switch t.Kind {
		case Newline:
			parts = append(parts, "NL")
		case Indent:
			parts = append(parts, "IN")
		case Dedent:
			parts = append(parts, "DE")
		case EOF:
			parts = append(parts, "EOF")
		default:
			parts = append(parts, t.Kind.String()+":"+t.Text(src))
		}
	}
	return strings.Join(parts, " ")
}

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"simple", "x = 1\n", "Name:x Op:= Number:1 NL EOF"},
		{"no trailing newline", "x", "Name:x NL EOF"},
		{"empty", "", "NL EOF"},
		{"ops longest match", "a //= b ** 2 <= c != d", "Name:a Op://= Name:b Op:** Number:2 Op:<= Name:c Op:!= Name:d NL EOF"},
		{"indent", "def f(x):\n    return x\n", "Name:def Name:f Op:( Name:x Op:) Op:: NL IN Name:return Name:x NL DE EOF"},
		{"nested dedent", "if a:\n  if b:\n    c\nd\n", "Name:if Name:a Op:: NL IN Name:if Name:b Op:: NL IN Name:c NL DE DE Name:d NL EOF"},
		{"blank and comment lines", "if a:\n\n  # hi\n  b\n", "Name:if Name:a Op:: NL Comment:# hi IN Name:b NL DE EOF"},
		{"brackets join lines", "x = (1,\n  2)\n", "Name:x Op:= Op:( Number:1 Op:, Number:2 Op:) NL EOF"},
		{"backslash continuation", "x = 1 + \\\n  2\n", "Name:x Op:= Number:1 Op:+ Number:2 NL EOF"},
		{"strings", `s = 'a\'b' + "c" + rb'd'`, `Name:s Op:= String:'a\'b' Op:+ String:"c" Op:+ String:rb'd' NL EOF`},
		{"triple", "s = '''a\n'b'\n''' + x\n", "Name:s Op:= String:'''a\n'b'\n''' Op:+ Name:x NL EOF"},
		{"fstring nested", `f"{x["k"]} {y:>{w}}" + z`, `String:f"{x["k"]} {y:>{w}}" Op:+ Name:z NL EOF`},
		{"fstring doubled braces", `f"{{x}}" + y`, `String:f"{{x}}" Op:+ Name:y NL EOF`},
		{"comment", "x = 1  # c < d\n", "Name:x Op:= Number:1 Comment:# c < d NL EOF"},
		{"numbers", "1_000 0x1F 1.5e-3 .5 2j", "Number:1_000 Number:0x1F Number:1.5e-3 Number:.5 Number:2j NL EOF"},
		{"unicode name", "héllo = 1", "Name:héllo Op:= Number:1 NL EOF"},
		{"error byte", "a $ b", "Name:a Error:$ Name:b NL EOF"},
		{"unterminated", "s = 'abc\nx", "Name:s Op:= String:'abc NL Name:x NL EOF"},
		{"walrus arrow", "def f() -> int: (y := 2)", "Name:def Name:f Op:( Op:) Op:-> Name:int Op:: Op:( Name:y Op::= Number:2 Op:) NL EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(tc.src); got != tc.want {
				t.Errorf("Tokenize(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestLinesAndDepth(t *testing.T) {
	src := "a = [\n  1,\n  '''x\ny''',\n]\nb = 2\n"
	toks := Tokenize(src)
	want := map[string]struct{ line, depth int }{
		"a": {1, 0}, "[": {1, 0}, "1": {2, 1}, "'''x\ny'''": {3, 1}, "]": {5, 0}, "b": {6, 0},
	}
	for _, tk := range toks {
		if w, ok := want[tk.Text(src)]; ok {
			if tk.Line != w.line || tk.Depth != w.depth {
				t.Errorf("%q: line %d depth %d, want %d %d", tk.Text(src), tk.Line, tk.Depth, w.line, w.depth)
			}
		}
	}
	ls := Logicals(toks)
	if len(ls) != 2 || ls[0].Line != 1 || ls[1].Line != 6 {
		t.Fatalf("Logicals = %+v", ls)
	}
}

func TestLogicalLevels(t *testing.T) {
	src := "def f(x):\n    if x:\n        return 1\n    return 2\n"
	ls := Logicals(Tokenize(src))
	var got []int
	for _, l := range ls {
		got = append(got, l.Level)
	}
	if want := []int{0, 1, 2, 1}; len(got) != len(want) || got[0] != 0 || got[1] != 1 || got[2] != 2 || got[3] != 1 {
		t.Fatalf("levels = %v, want %v", got, want)
	}
}

// FuzzTokenize checks that tokenizing arbitrary input never panics and that
// tokens are in order, inside the input, non-overlapping, and that every byte
// outside tokens is whitespace, a line continuation or a line break.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"x = 1\n", "def f(a, b):\n\treturn a[b:]\n", `f"{a["b"]}"`, "'''", "\\\n", "if x:\n  y\n z\n", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks := Tokenize(src)
		if len(toks) == 0 || toks[len(toks)-1].Kind != EOF {
			t.Fatal("no EOF")
		}
		prev := 0
		for _, tk := range toks {
			if tk.Start < prev || tk.End < tk.Start || tk.End > len(src) {
				t.Fatalf("bad span %+v after %d", tk, prev)
			}
			for _, c := range []byte(src[prev:tk.Start]) {
				if !strings.ContainsRune(" \t\f\r\n\\", rune(c)) {
					t.Fatalf("byte %q at gap [%d,%d) not covered", c, prev, tk.Start)
				}
			}
			if tk.Kind != Newline && tk.Kind != Indent && tk.Kind != Dedent && tk.Kind != EOF && tk.End == tk.Start {
				t.Fatalf("empty %v token", tk.Kind)
			}
			prev = tk.End
		}
		_ = Logicals(toks)
	})
}
