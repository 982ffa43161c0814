package convert

import (
	"slices"
	"strings"
	"testing"
)

func TestRewriteImports(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		names          []string
	}{
		{"from, one line", "from leap import leap_year\n", "from solution import leap_year\n", []string{"leap_year"}},
		{"from, parenthesized over lines",
			"import unittest\n\nfrom leap import (\n    leap_year,\n    other as o,  # a comment\n)\n",
			"import unittest\n\nfrom solution import (\n    leap_year,\n    other as o,  # a comment\n)\n",
			[]string{"leap_year", "other"}},
		{"from, backslash continuation", "from leap import a, \\\n    b\n", "from solution import a, \\\n    b\n", []string{"a", "b"}},
		{"import module", "import unittest\nimport yacht\n", "import unittest\nimport solution as yacht\n", []string{"yacht"}},
		{"import module as alias", "import yacht as y\n", "import solution as y\n", []string{"y"}},
		{"import among others", "import os, yacht, sys\n", "import os, solution as yacht, sys\n", []string{"yacht"}},
		{"inside try", "try:\n    from hello import (\n        hello,\n    )\nexcept ImportError:\n    raise\n",
			"try:\n    from solution import (\n        hello,\n    )\nexcept ImportError:\n    raise\n", []string{"hello"}},
		{"star", "from leap import *\n", "from solution import *\n", nil},
		{"patch target", `@mock.patch("grep.open", create=True)` + "\n", `@mock.patch("solution.open", create=True)` + "\n", nil},
		{"patch target on the next line", "mock.patch(\n    'grep.open')\n", "mock.patch(\n    'solution.open')\n", nil},
		{"a string that is the module's name is data", `self.assertIs(is_isogram("isogram"), True)` + "\nfrom isogram import is_isogram\n",
			`self.assertIs(is_isogram("isogram"), True)` + "\nfrom solution import is_isogram\n", []string{"is_isogram"}},
		{"a submodule is not the module", "from leap.sub import x\nimport leaper\n", "from leap.sub import x\nimport leaper\n", nil},
		{"in a string, not a statement", "s = '''\nfrom leap import x\n'''\n", "s = '''\nfrom leap import x\n'''\n", nil},
		{"in a comment", "# from leap import x\n", "# from leap import x\n", nil},
		{"after a semicolon", "x = 1; from leap import f\n", "x = 1; from solution import f\n", []string{"f"}},
	} {
		module := "leap"
		for _, m := range []string{"yacht", "hello", "grep", "isogram"} {
			if strings.Contains(c.in, m) {
				module = m
			}
		}
		got, names := RewriteImports(c.in, module)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		var ns []string
		for _, n := range names {
			ns = append(ns, n.Name)
		}
		if !slices.Equal(ns, c.names) {
			t.Errorf("%s: names %v, want %v", c.name, ns, c.names)
		}
	}
}

func TestParseImports(t *testing.T) {
	src := "import a.b as c, d\nfrom . import e\nfrom ..f import (g,\n  h as i,)\nfrom j import *\nx = 1\n"
	got := ParseImports(src)
	if len(got) != 4 {
		t.Fatalf("%d statements: %+v", len(got), got)
	}
	if got[0].From || got[0].Names[0] != (ImportName{"a.b", "c"}) || got[0].Names[1].Bound() != "d" {
		t.Errorf("import: %+v", got[0])
	}
	if !got[1].From || got[1].Level != 1 || got[1].Module != "" || got[1].Names[0].Name != "e" {
		t.Errorf("from . import: %+v", got[1])
	}
	if got[2].Level != 2 || got[2].Module != "f" || len(got[2].Names) != 2 || got[2].Names[1].Bound() != "i" {
		t.Errorf("from ..f import: %+v", got[2])
	}
	if !got[3].Star || got[3].Module != "j" {
		t.Errorf("star: %+v", got[3])
	}
	if s := src[got[2].Start:got[2].End]; s != "from ..f import (g,\n  h as i,)" {
		t.Errorf("span %q", s)
	}
}

// FuzzRewriteImports: any text rewrites without a panic; a text without
// the module's name is unchanged; the rewrite is idempotent; no import
// statement of the module is left.
func FuzzRewriteImports(f *testing.F) {
	for _, s := range []string{
		"from leap import (\n    leap_year,\n)\n", "import leap\nimport leap as l, os\n", `mock.patch("leap.open")`,
		"s = '''from leap import x'''\nfrom leap import y  # c\n", "from leap import (a, \\\n b)\n", "'unterminated\nfrom leap import z",
		"r'\\'' ; import leap", "(\nfrom leap import x", "from . import leap\nfrom .leap import x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := RewriteImports(s, "leap")
		if !strings.Contains(s, "leap") && out != s {
			t.Fatalf("changed a text without the module:\n%q\n%q", s, out)
		}
		again, names := RewriteImports(out, "leap")
		if again != out || len(names) > 0 {
			t.Fatalf("not idempotent:\n%q\n%q\n%q (names %v)", s, out, again, names)
		}
		for _, imp := range ParseImports(out) {
			if imp.From && imp.Level == 0 && imp.Module == "leap" {
				t.Fatalf("left %q in\n%q", out[imp.Start:imp.End], out)
			}
		}
	})
}
