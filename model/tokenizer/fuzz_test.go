package tokenizer

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// FuzzEncode runs the Qwen3 tokenizer on arbitrary bytes, invalid UTF-8
// included: no panic, ids in range, CountTokens agrees, the result does not
// depend on the cache, and text without added tokens decodes back to its
// NFC form byte for byte.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{
		"", "def f(x):\n    return x+1\n", "\xff\xfe\xc3(\x80", "<|im_start|>user\n<|im_end", "a\u0301\u0338>",
		"E   AssertionError: assert 3 == 4\n", "   \n\n\t\r\n ", "'s'S'll 'Re", "漢字\U0001F600١", strings.Repeat("ab", 40),
	} {
		f.Add(s)
	}
	tok := qwen3(f)
	nocache := *tok
	nocache.cache = nil
	vocab := int32(tok.VocabSize())
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= vocab {
				t.Fatalf("Encode(%q): id %d out of range", s, id)
			}
		}
		if n := tok.CountTokens(s); n != len(ids) {
			t.Fatalf("CountTokens(%q) = %d, len(Encode) = %d", s, n, len(ids))
		}
		if again := nocache.Encode(s); !slices.Equal(again, ids) {
			t.Fatalf("Encode(%q) with cache %v, without %v", s, ids, again)
		}
		if !strings.Contains(s, "<") {
			if got, want := tok.Decode(ids), norm.NFC.String(s); got != want {
				t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
			}
		}
	})
}

// FuzzParse feeds mutated tokenizer.json documents to Parse: it returns an
// error or a tokenizer that encodes without panicking.
func FuzzParse(f *testing.F) {
	f.Add(smallTokenizerJSON(f))
	f.Add([]byte(`{"added_tokens":[{"id":7,"content":"<x>","lstrip":true,"rstrip":true,"single_word":true}],` +
		`"normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"}]},` +
		`"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"String":" "},"behavior":"Isolated"},` +
		`{"type":"ByteLevel","use_regex":false}]},"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}}`))
	f.Add([]byte(`{"model":{"vocab":{"a":99999999}}}`))
	f.Add([]byte(`{"pre_tokenizer":{"type":"ByteLevel"},"model":{"vocab":{"a":0},"merges":["a a"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data)
		if err != nil {
			return
		}
		ids := tok.Encode("ab <x> ab\xff\u00e9")
		for _, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d out of range %d", id, tok.VocabSize())
			}
		}
		_ = tok.Decode(ids)
	})
}
