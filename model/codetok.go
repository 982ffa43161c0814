package model

import "unicode/utf8"

// codeTokens splits source or prose into coarse code tokens: identifiers
// and words, numbers, the multi-character operators of Python, and single
// punctuation characters. Whitespace separates tokens and is dropped. It
// never fails: invalid UTF-8 bytes become one-byte tokens.
func codeTokens(s string) []string {
	out := make([]string, 0, len(s)/3+1) // about one token per three bytes of code
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == '_') {
				j++
			}
			out = append(out, s[i:j])
			i = j
		case c >= utf8.RuneSelf:
			_, n := utf8.DecodeRuneInString(s[i:])
			out = append(out, s[i:i+n])
			i += n
		default:
			n := operatorLen(s[i:])
			out = append(out, s[i:i+n])
			i += n
		}
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// operatorLen is the length of the Python operator at the start of s (3, 2
// or 1 bytes).
func operatorLen(s string) int {
	if len(s) >= 3 {
		switch s[:3] {
		case "**=", "//=", ">>=", "<<=", "...":
			return 3
		}
	}
	if len(s) >= 2 {
		switch s[:2] {
		case "==", "!=", "<=", ">=", "//", "**", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ">>", "<<", ":=":
			return 2
		}
	}
	return 1
}
