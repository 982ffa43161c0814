package tokenizer

import "testing"

func TestByteLevelAlphabet(t *testing.T) {
	b2r, r2b := byteLevelAlphabet()
	if len(r2b) != 256 {
		t.Fatalf("alphabet has %d runes, want 256", len(r2b))
	}
	cases := []struct {
		b byte
		r rune
	}{{' ', 'Ġ'}, {'\n', 'Ċ'}, {'\t', 'ĉ'}, {'a', 'a'}, {0x00, 'Ā'}, {0xAD, 'Ń'}, {0xFF, 'ÿ'}}
	for _, c := range cases {
		if b2r[c.b] != c.r {
			t.Errorf("byte %#02x -> %q, want %q", c.b, b2r[c.b], c.r)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	enc := toByteLevel(string(all), &b2r)
	raw, ok := fromByteLevel(enc, r2b)
	if !ok || raw != string(all) {
		t.Errorf("round trip of all bytes failed (ok=%v)", ok)
	}
	if _, ok := fromByteLevel("a\u4e00", r2b); ok {
		t.Error("a rune outside the alphabet was accepted")
	}
}
