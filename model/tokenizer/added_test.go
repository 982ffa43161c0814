package tokenizer

import (
	"encoding/json"
	"slices"
	"testing"
)

// addedTokenizer is a byte-level BPE over single bytes (ids = byte values
// of a..z, space) with the given added tokens.
func addedTokenizer(t *testing.T, added []AddedToken) *Tokenizer {
	t.Helper()
	vocab := map[string]int32{}
	br, _ := byteLevelAlphabet()
	for _, c := range "abcexyz <>|_\u00e9\u0301" {
		for _, b := range []byte(string(c)) {
			vocab[string(br[b])] = int32(b)
		}
	}
	doc := map[string]any{
		"added_tokens":  added,
		"normalizer":    map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "use_regex": false},
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAddedTokens(t *testing.T) {
	ids := func(s string) []int32 {
		out := make([]int32, len(s))
		for i := range len(s) {
			out[i] = int32(s[i])
		}
		return out
	}
	cat := func(parts ...[]int32) []int32 { return slices.Concat(parts...) }
	cases := []struct {
		name  string
		added []AddedToken
		in    string
		want  []int32
	}{
		{"plain", []AddedToken{{ID: 300, Content: "<x>"}}, "a<x>b", cat(ids("a"), []int32{300}, ids("b"))},
		{"longest wins", []AddedToken{{ID: 300, Content: "<x"}, {ID: 301, Content: "<x>"}}, "<x><xa",
			cat([]int32{301, 300}, ids("a"))},
		{"adjacent", []AddedToken{{ID: 300, Content: "||"}}, "|||||", cat([]int32{300, 300}, ids("|"))},
		{"lstrip", []AddedToken{{ID: 300, Content: "<x>", LStrip: true}}, "a  <x> b", cat(ids("a"), []int32{300}, ids(" b"))},
		{"rstrip", []AddedToken{{ID: 300, Content: "<x>", RStrip: true}}, "a  <x> b", cat(ids("a  "), []int32{300}, ids("b"))},
		{"single word rejects", []AddedToken{{ID: 300, Content: "xy", SingleWord: true}}, "axy xy", cat(ids("axy "), []int32{300})},
		{"not normalized: raw match only", []AddedToken{{ID: 300, Content: "\u00e9"}}, "e\u0301", ids("\u00e9")},
		{"normalized: matches after NFC", []AddedToken{{ID: 300, Content: "\u00e9", Normalized: true}}, "e\u0301a",
			cat([]int32{300}, ids("a"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := addedTokenizer(t, c.added)
			if got := tok.Encode(c.in); !slices.Equal(got, c.want) {
				t.Errorf("Encode(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}
