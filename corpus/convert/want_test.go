package convert

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// literalCases are texts and whether Python's ast.literal_eval reads them
// (checked against Python by TestParseLiteralAgreesWithPython), with
// whether they hold a float.
var literalCases = []struct {
	in     string
	ok     bool
	floats bool
}{
	{"120", true, false},
	{"-4", true, false},
	{"+4", true, false},
	{"--4", false, false},
	{"1_000", true, false},
	{"1__0", false, false},
	{"0x1F", true, false},
	{"0o17", true, false},
	{"0b101", true, false},
	{"007", false, false},
	{"000", true, false},
	{"1.5", true, true},
	{".5", true, true},
	{"1.", true, true},
	{"1e-09", true, true},
	{"1.2.3", false, false},
	{"2j", true, true},
	{"(1+2j)", true, true},
	{"-1-2j", true, true},
	{"1+2", false, false},
	{"1j+2", false, false},
	{"inf", false, false},
	{"nan", false, false},
	{"'abc'", true, false},
	{`"it's"`, true, false},
	{`'a' "b"`, true, false},
	{`b'\x00'`, true, false},
	{`'a' b'b'`, false, false},
	{`'\x4'`, false, false},
	{`'\u00e9'`, true, false},
	{`'\N{DASH}'`, false, false},
	{`r'\d'`, true, false},
	{`f'x'`, false, false},
	{"'unterminated", false, false},
	{"True", true, false},
	{"None", true, false},
	{"true", false, false},
	{"[1, 2, 3]", true, false},
	{"[1, [2.0, 3]]", true, true},
	{"[\n 1,\n 2]", true, false},
	{"[1,]", true, false},
	{"[,]", false, false},
	{"()", true, false},
	{"(1,)", true, false},
	{"(1)", true, false},
	{"{}", true, false},
	{"{1: 'a', 'b': [2]}", true, false},
	{"{1, 2}", true, false},
	{"{[1]: 2}", false, false},
	{"{(1, 2): 3}", true, false},
	{"{([1],): 3}", false, false},
	{"{1: 2, 3}", false, false},
	{"[1] [2]", false, false},
	{"1\n2", false, false},
	{"set()", false, false},
	{"<Node 3>", false, false},
	{"Node(3)", false, false},
	{"...", false, false},
	{"", false, false},
	{"  7  ", true, false},
}

func TestParseLiteral(t *testing.T) {
	for _, c := range literalCases {
		lit, err := ParseLiteral(c.in)
		if (err == nil) != c.ok || err == nil && lit.Floats != c.floats {
			t.Errorf("ParseLiteral(%q) = %+v, %v; want ok %v floats %v", c.in, lit, err, c.ok, c.floats)
		}
	}
}

// TestParseLiteralAgreesWithPython: what ParseLiteral accepts,
// ast.literal_eval reads (a test could not load otherwise); and the table
// above says what Python says of every case.
func TestParseLiteralAgreesWithPython(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	var ins []string
	for _, c := range literalCases {
		ins = append(ins, c.in)
	}
	arg, _ := json.Marshal(ins)
	script := `import ast, json, sys, warnings
warnings.simplefilter("ignore")
out = []
for s in json.loads(sys.argv[1]):
    try:
        ast.literal_eval(s.strip())
        out.append(True)
    except Exception:
        out.append(False)
print(json.dumps(out))`
	b, err := exec.Command(py, "-c", script, string(arg)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var pyOK []bool
	if err := json.Unmarshal(b, &pyOK); err != nil {
		t.Fatal(err)
	}
	subset := map[string]bool{"...": true, "set()": true, `'\N{DASH}'`: true, "": true}
	for i, c := range literalCases {
		_, err := ParseLiteral(c.in)
		if err == nil && !pyOK[i] {
			t.Errorf("%q: accepted, but Python's literal_eval refuses it", c.in)
		}
		// Refusing what Python reads is allowed (a subset), but the table
		// must say which: an Ellipsis, set(), a named escape, an empty want.
		if pyOK[i] != c.ok && !subset[c.in] {
			t.Errorf("%q: the table says ok=%v, Python says %v", c.in, c.ok, pyOK[i])
		}
	}
}

func TestParseWant(t *testing.T) {
	msg := func(s string) *string { return &s }
	for _, c := range []struct {
		name    string
		want    string
		exc     *string
		options []string
		check   func(Want) bool
		err     string
	}{
		{"int", "18\n", nil, nil, func(w Want) bool { return w.Kind == WantValue && w.Literal == "18" && !w.Floats }, ""},
		{"multi-line list of floats", "[1.5,\n 2.5]\n", nil, nil,
			func(w Want) bool { return w.Kind == WantValue && w.Floats && w.MultiLine }, ""},
		{"repr text", "<Node 3>\n", nil, nil, func(w Want) bool { return w.Kind == WantText && w.Text == "<Node 3>\n" }, ""},
		{"printed lines with a blank", "a\n<BLANKLINE>\nb\n", nil, nil,
			func(w Want) bool { return w.Kind == WantText && w.Text == "a\n\nb\n" }, ""},
		{"ellipsis text", "[1, ...]\n", nil, []string{"ELLIPSIS"}, nil, "ELLIPSIS"},
		{"ellipsis flag, no dots", "[1, 2]\n", nil, []string{"ELLIPSIS"}, func(w Want) bool { return w.Kind == WantValue }, ""},
		{"normalize whitespace literal", "[1,\n   2]\n", nil, []string{"NORMALIZE_WHITESPACE"}, func(w Want) bool { return w.Kind == WantValue }, ""},
		{"normalize whitespace text", "a   b\n", nil, []string{"NORMALIZE_WHITESPACE"}, nil, "NORMALIZE_WHITESPACE"},
		{"exception", "Traceback (most recent call last):\nValueError: bad\n", msg("ValueError: bad\n"), nil,
			func(w Want) bool {
				return w.Kind == WantRaise && w.ExcType == "ValueError" && w.ExcMessage == "bad" && !w.MessageFree
			}, ""},
		{"dotted exception, message over lines", "", msg("pkg.mod.Error: one\ntwo\n"), nil,
			func(w Want) bool { return w.ExcType == "Error" && w.ExcMessage == "one\ntwo" }, ""},
		{"exception without message", "", msg("KeyError\n"), nil,
			func(w Want) bool { return w.ExcType == "KeyError" && w.ExcMessage == "" }, ""},
		{"exception detail ignored", "", msg("ValueError: anything\n"), []string{"IGNORE_EXCEPTION_DETAIL"},
			func(w Want) bool { return w.MessageFree }, ""},
		{"exception message with ellipsis", "", msg("ValueError: bad ...\n"), []string{"ELLIPSIS"},
			func(w Want) bool { return w.MessageFree }, ""},
		{"not a type", "", msg("something went wrong\n"), nil, nil, "names no type"},
		{"empty", "", nil, nil, nil, "no expected output"},
	} {
		w, err := ParseWant(c.want, c.exc, c.options)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v, want one with %q", c.name, err, c.err)
		case c.err == "" && (err != nil || !c.check(w)):
			t.Errorf("%s: %+v, %v", c.name, w, err)
		}
	}
}

// FuzzParseWant: any want and exception text reads without a panic; a
// literal it accepts is the want itself, without its trailing newlines,
// and parses again the same way.
func FuzzParseWant(f *testing.F) {
	for _, c := range literalCases {
		f.Add(c.in+"\n", "", false)
	}
	f.Add("", "ValueError: x\n", true)
	f.Add("", "a.b.C\n", true)
	f.Add("x\n<BLANKLINE>\n", "", false)
	f.Fuzz(func(t *testing.T, want, exc string, raises bool) {
		var e *string
		if raises {
			e = &exc
		}
		w, err := ParseWant(want, e, []string{"ELLIPSIS"})
		if err != nil {
			return
		}
		switch w.Kind {
		case WantValue:
			if w.Literal != strings.TrimRight(want, "\n") {
				t.Fatalf("literal %q of want %q", w.Literal, want)
			}
			lit, err := ParseLiteral(w.Literal)
			if err != nil || lit.Floats != w.Floats {
				t.Fatalf("%q: accepted, then %v %v", w.Literal, lit, err)
			}
		case WantText:
			if !strings.HasSuffix(w.Text, "\n") {
				t.Fatalf("text %q without its newline", w.Text)
			}
		case WantRaise:
			if !raises || !isDottedName(w.ExcType) || strings.Contains(w.ExcType, ".") {
				t.Fatalf("exception type %q from %q", w.ExcType, exc)
			}
		}
	})
}
