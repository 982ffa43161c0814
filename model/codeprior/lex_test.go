package codeprior

import (
	"strings"
	"testing"
)

// symText renders src's symbols as "line: sym sym ..." lines.
func symText(t *testing.T, src string) string {
	t.Helper()
	v, err := newVocab(Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	last := 0
	for _, s := range v.symbols(src)[1:] {
		if int(s.line) != last {
			if last != 0 {
				b.WriteString("\n")
			}
			b.WriteString(itoa(int(s.line)) + ":")
			last = int(s.line)
		}
		b.WriteString(" " + v.syms[s.id])
	}
	return b.String()
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestSymbols(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"names by recency, literals by kind, comments gone",
			"def f(xs, n):\n    total = 0  # c\n    for i in range(len(xs)):\n        total += xs[i] * 2.5\n    return total\n",
			"1: def <vnew> ( <vnew> , <vnew> ) : <nl>\n" +
				"2: <indent> <vnew> = 0 <nl>\n" +
				"3: for <vnew> in range ( len ( <v3> ) ) : <nl>\n" +
				"4: <indent> <v2> += <v1> [ <v2> ] * <float> <nl>\n" +
				"5: <dedent> return <v2> <nl>\n" +
				"6: <dedent> </s>"},
		{"a bracket continues the line; strings by kind",
			"s = (f'{a}' +\n     \"\" + 'x' + b'y' + 'abc')\n",
			"1: <vnew> = ( <fstr> +\n2: <str0> + <str1> + <bytes> + <str> ) <nl> </s>"},
		{"attributes after a dot: kept names and their own recency list",
			"self.items.append(math.sqrt(3))\nself.foo = self.bar + self.foo\n",
			"1: self . items . append ( math . sqrt ( <int> ) ) <nl>\n" +
				"2: self . <anew> = self . <anew> + self . <a1> <nl> </s>"},
		{"a triple-quoted string spans lines, a backslash joins them",
			"x = \"\"\"a\nb\"\"\" + \\\n  y\n",
			"1: <vnew> = <str3>\n2: +\n3: <vnew> <nl> </s>"},
		{"numbers", "a = 0x1F + 1e3 + 2j + 10 + 1 + .5\n",
			"1: <vnew> = <int> + <float> + <imag> + <int> + 1 + <float> <nl> </s>"},
		{"blank and comment lines make no token; dedent to an unknown level",
			"if a:\n\n        # c\n        b\n    c\n",
			"1: if <vnew> : <nl>\n4: <indent> <vnew> <nl>\n5: <vnew> <nl>\n6: <dedent> </s>"},
		{"no final line break", "if a:\n    b", "1: if <vnew> : <nl>\n2: <indent> <vnew> <nl> <dedent> </s>"},
		{"unterminated string and stray bytes never fail", "x = 'abc\n$ ?\n",
			"1: <vnew> = <str> <nl>\n2: <unk> <unk> <nl> </s>"},
		{"unicode names and dunders", "café = __name__\n",
			"1: <vnew> = __name__ <nl> </s>"},
	} {
		if got := symText(t, c.src); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestLexCRLF(t *testing.T) {
	a := symText(t, "def f(a):\r\n    return a\r\n")
	b := symText(t, "def f(a):\n    return a\n")
	if a != b {
		t.Errorf("CRLF %q != LF %q", a, b)
	}
}
