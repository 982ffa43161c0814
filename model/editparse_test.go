package model

import (
	"hash/fnv"
	"reflect"
	"testing"
)

// parseBoth parses text and diagnosis with and without the prefilter.
func parseBoth(text string) (fast, slow parsedEdit, fastS, slowS suspicion) {
	fast, fastS = parseEdit(text), parseSuspicion(text)
	prefilter = false
	defer func() { prefilter = true }()
	return fast, parseEdit(text), fastS, parseSuspicion(text)
}

// FuzzParseEditPrefilter checks that skipping the regular expressions that
// cannot match never changes what an edit or a diagnosis parses to.
func FuzzParseEditPrefilter(f *testing.F) {
	for _, s := range []string{
		"Line 3: change `return a - b` to `return a + b`; test_x expects 3",
		"LINE 2: Replace `x` WITH `y`",
		"use `c` instead of `a` in `return a - b`",
		"uſe `c` inſtead of `a`", // ſ folds onto s
		"Remove the line `print(x)`",
		"drop `y = 1`",
		"1 of 2 tests fail.\nSuspicious lines (Ochiai):\n- line 3 (0.90): `x`\n- line 1 (0.5): `y`\nMost likely the fault is on line 3; hint.",
		"MOST LIKELY THE FAULT IS ON LINE 12",
		"nothing to see",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fast, slow, fastS, slowS := parseBoth(text)
		if fast != slow {
			t.Errorf("parseEdit(%q): %+v with the prefilter, %+v without", text, fast, slow)
		}
		if !reflect.DeepEqual(fastS, slowS) {
			t.Errorf("parseSuspicion(%q): %+v with the prefilter, %+v without", text, fastS, slowS)
		}
	})
}

func TestMayContain(t *testing.T) {
	for _, tc := range []struct {
		s, word string
		want    bool
	}{
		{"Change `a` to `b`", "change", true},
		{"CHANGE", "change", true},
		{"chang", "change", false},
		{"no such word", "replace", false},
		{"naïve", "replace", true}, // not ASCII: the regular expression decides
		{"", "line", false},
	} {
		if got := mayContain(tc.s)(tc.word); got != tc.want {
			t.Errorf("mayContain(%q, %q) = %v", tc.s, tc.word, got)
		}
	}
}

func TestFNV1aMatchesHashFNV(t *testing.T) {
	for _, s := range []string{"", "a", "return", "x y", "ünïcode", string([]byte{0, 255, 7})} {
		for _, field := range []byte{fieldFeedback, fieldPair, 200} {
			h := fnv.New32a()
			h.Write([]byte{field, 0})
			h.Write([]byte(s))
			if got, want := fnv1a(field, s), h.Sum32(); got != want {
				t.Errorf("fnv1a(%d, %q) = %d, hash/fnv %d", field, s, got, want)
			}
		}
	}
}

func TestParseEditText(t *testing.T) {
	for _, c := range []struct {
		text string
		want EditChange
		ok   bool
	}{
		{"Line 3: change `for i in range(0,N - 1):` to `for i in range(0,N):`; test_1 expects 4", EditChange{3, "for i in range(0,N - 1):", "for i in range(0,N):"}, true},
		{"Line 7: use `i` instead of `evenPair` in `return evenPair;`; so it reads the wrong variable.", EditChange{7, "return evenPair;", "return i;"}, true},
		{"Remove `x += 1`", EditChange{0, "x += 1", "pass"}, true},
		{"Think harder about the loop.", EditChange{}, false},
	} {
		got, ok := ParseEditText(c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %+v %v, want %+v %v", c.text, got, ok, c.want, c.ok)
		}
	}
}
