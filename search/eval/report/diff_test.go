package report

import (
	"strings"
	"testing"
)

// applyDiff rebuilds b from a and a unified diff, to check diffs end to end.
func applyDiff(t *testing.T, a, d string) string {
	t.Helper()
	if d == "" {
		return a
	}
	la := splitLines(a)
	var out []string
	pos := 0
	for _, line := range strings.Split(strings.TrimSuffix(d, "\n"), "\n")[2:] { // after the --- and +++ headers
		switch {
		case strings.HasPrefix(line, "@@"):
			var as, al, bs, bl int
			if _, err := fmtSscanf(line, &as, &al, &bs, &bl); err != nil {
				t.Fatalf("bad hunk header %q: %v", line, err)
			}
			start := as - 1
			if al == 0 {
				start = as
			}
			out = append(out, la[pos:start]...)
			pos = start
		case line[0] == ' ':
			out = append(out, la[pos])
			pos++
		case line[0] == '-':
			pos++
		case line[0] == '+':
			out = append(out, line[1:])
		}
	}
	out = append(out, la[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func TestUnifiedDiff(t *testing.T) {
	long := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if s, ok := change[i]; ok {
				if s != "" {
					b.WriteString(s + "\n")
				}
				continue
			}
			b.WriteString("line " + string(rune('a'+i%26)) + "\n")
		}
		return b.String()
	}
	for _, c := range []struct{ name, a, b, want string }{
		{"equal", "x\n", "x\n", ""},
		{"one line", "def f():\n    return a+b\n", "def f():\n    return a-b\n",
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n def f():\n-    return a+b\n+    return a-b\n"},
		{"from empty", "", "x\n", "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n"},
		{"two hunks", long(30, nil), long(30, map[int]string{2: "changed", 25: ""}), ""},
	} {
		got := UnifiedDiff("a", "b", c.a, c.b)
		if c.want != "" && got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
		if back := applyDiff(t, c.a, got); back != c.b {
			t.Errorf("%s: applying the diff gives\n%q\nwant\n%q\ndiff:\n%s", c.name, back, c.b, got)
		}
		if c.name == "two hunks" && strings.Count(got, "@@ -") != 2 {
			t.Errorf("two hunks: got\n%s", got)
		}
	}
}

func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nX\n4\n5\n6\n7\n8\nY\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.Contains(a+b, "\r") || len(a)+len(b) > 4000 {
			return
		}
		// Normalize to newline-terminated text, the form programs take.
		norm := func(s string) string {
			if s != "" && !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			return s
		}
		a, b = norm(a), norm(b)
		if strings.Contains(a, "\n\n") || strings.Contains(b, "\n\n") || strings.HasPrefix(a, "\n") || strings.HasPrefix(b, "\n") {
			return // blank-line handling of splitLines aside
		}
		if got := applyDiff(t, a, UnifiedDiff("a", "b", a, b)); got != b {
			t.Fatalf("round trip of %q -> %q gave %q", a, b, got)
		}
	})
}
