package tokenizer

import "unicode/utf8"

// byteLevelAlphabet returns GPT-2's byte-level mapping: byte b is written in
// tokenizer.json as the rune byteToRune[b]. Printable Latin-1 bytes map to
// themselves; the other 68 bytes map to U+0100 and up, in byte order.
func byteLevelAlphabet() (byteToRune [256]rune, runeToByte map[rune]byte) {
	runeToByte = make(map[rune]byte, 256)
	n := rune(0)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		r := rune(b)
		if !printable {
			r = 256 + n
			n++
		}
		byteToRune[b] = r
		runeToByte[r] = byte(b)
	}
	return byteToRune, runeToByte
}

// fromByteLevel converts a vocabulary entry written in the byte-level
// alphabet back to the raw bytes it stands for. ok is false when s holds a
// rune outside the alphabet (such an entry can never be produced by the
// byte-level pre-tokenizer).
func fromByteLevel(s string, runeToByte map[rune]byte) (raw string, ok bool) {
	buf := make([]byte, 0, len(s))
	for _, r := range s {
		b, found := runeToByte[r]
		if !found {
			return "", false
		}
		buf = append(buf, b)
	}
	return string(buf), true
}

// toByteLevel writes raw bytes in the byte-level alphabet (the inverse of
// fromByteLevel).
func toByteLevel(raw string, byteToRune *[256]rune) string {
	buf := make([]byte, 0, 2*len(raw))
	for i := 0; i < len(raw); i++ {
		buf = utf8.AppendRune(buf, byteToRune[raw[i]])
	}
	return string(buf)
}
