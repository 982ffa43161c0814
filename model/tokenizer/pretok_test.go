package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pieces splits s with sp and returns the pieces.
func pieces(t testing.TB, sp splitter, s string) []string {
	t.Helper()
	var out []string
	if err := sp.split(s, func(a, b int) { out = append(out, s[a:b]) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestQwen2Scanner(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"hello world", []string{"hello", " world"}},
		{"it's I'LL 'sam", []string{"it", "'s", " I", "'LL", " '", "sam"}},
		{"x = 123", []string{"x", " =", " ", "1", "2", "3"}},
		{"def f():\n    return 1\n", []string{"def", " f", "():\n", "   ", " return", " ", "1", "\n"}},
		{"a  \n\n  b", []string{"a", "  \n\n", " ", " b"}},
		{"   ", []string{"   "}},
		{"\t(x)", []string{"\t", "(x", ")"}},
		{"  (x", []string{" ", " (", "x"}},
		{"E   AssertionError", []string{"E", "  ", " AssertionError"}},
		{"é漢字١٢", []string{"é漢字", "١", "٢"}},
		{"a\xffb", []string{"a", "\xffb"}},
		{"\xff\xfe!", []string{"\xff\xfe!"}},
		{"x\r\n\r\ny", []string{"x", "\r\n\r\n", "y"}},
		{"\u00a0\u3000x", []string{"\u00a0", "\u3000x"}},
		{"'", []string{"'"}},
	}
	for _, c := range cases {
		got := pieces(t, qwen2Splitter{}, c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// qwen2Regexp is the regexp2 reference for the scanner.
func qwen2Regexp(t testing.TB) *regexSplitter {
	t.Helper()
	rs, err := newRegexSplitter(qwen2Pattern)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// FuzzQwen2ScannerMatchesRegexp2 is the equivalence proof of the hand
// scanner: on any bytes it cuts exactly where regexp2 running qwen2Pattern
// cuts.
func FuzzQwen2ScannerMatchesRegexp2(f *testing.F) {
	for _, s := range []string{
		"", "hello world", "it's 'S 'Re 'vE 'LL 'd 'm 'x 'ſ '\u212a", "  \n\t \r\n  x", "\xff\xfe\x80abc",
		"\u00a0a\u2029b\u180ec\u200bd\ufeffe", "١٢٣ⅫⅩ①", " !!\n\n?? ", "a \u0301b", "\x00\x01 \x7f",
	} {
		f.Add(s)
	}
	rs := qwen2Regexp(f)
	f.Fuzz(func(t *testing.T, s string) {
		got := pieces(t, qwen2Splitter{}, s)
		want := pieces(t, rs, s)
		if !slices.Equal(got, want) {
			t.Fatalf("split(%q):\nscanner %q\nregexp2 %q", s, got, want)
		}
	})
}

// TestRegexpPathMatchesFixtures runs the generic regexp2 pre-tokenizer on
// the golden cases, so the path used by other tokenizer.json files is
// checked against the reference too.
func TestRegexpPathMatchesFixtures(t *testing.T) {
	base := qwen3(t)
	slow := *base
	slow.split, slow.qwen2, slow.cache = qwen2Regexp(t), false, newPieceCache(cacheCapacity)
	var cases []fixture
	if err := json.Unmarshal(readTestdata(t, "stress_fixture.json.zst"), &cases); err != nil {
		t.Fatal(err)
	}
	var fx []fixture
	if err := json.Unmarshal(readTestdata(t, "qwen3_fixture.json"), &fx); err != nil {
		t.Fatal(err)
	}
	for i, c := range append(fx, cases...) {
		if got := slow.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Fatalf("case %d %q: %s", i, c.Text, firstDiff(got, c.IDs))
		}
	}
}

// TestQwen2ScannerRandom is the deterministic part of the differential
// check: random strings over an alphabet of the pattern's edge cases
// (contractions, every whitespace kind, CR/LF runs, letters, numbers,
// marks, invalid bytes) split the same way by the scanner and by regexp2.
func TestQwen2ScannerRandom(t *testing.T) {
	alphabet := []string{"a", "Z", "s", "re", "ll", "'", "'", " ", "  ", "\n", "\r", "\r\n", "\t", "\v", "\x00",
		"1", "٣", "Ⅻ", "!", "(", ")", "_", ".", "é", "e\u0301", "\u0301", "漢", "\u00a0", "\u3000", "\u2029",
		"\u0085", "\u180e", "\u200b", "\ufeff", "ſ", "\U0001F600", "\xff", "\xc3", "\xe4\xb8"}
	rs := qwen2Regexp(t)
	r := rand.New(rand.NewPCG(7, 11))
	n := 20000
	if testing.Short() {
		n = 3000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.IntN(16) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := pieces(t, qwen2Splitter{}, s), pieces(t, rs, s); !slices.Equal(got, want) {
			t.Fatalf("split(%q):\nscanner %q\nregexp2 %q", s, got, want)
		}
	}
}
