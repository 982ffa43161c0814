package corpus

import (
	"fmt"
	"strings"
)

// Summarize says in one line why an execution is not solved.
func Summarize(ex Execution) string {
	if ex.Status != StatusOK {
		return fmt.Sprintf("status %s: %s", ex.Status, firstLine(ex.Feedback))
	}
	if len(ex.Tests) == 0 {
		return "no tests collected"
	}
	failed := 0
	first := ""
	for _, t := range ex.Tests {
		if !t.Passed {
			failed++
			if first == "" {
				first = t.Name
				if t.Message != "" {
					first += " - " + firstLine(t.Message)
				}
			}
		}
	}
	if failed == 0 {
		return fmt.Sprintf("all %d tests pass", len(ex.Tests))
	}
	return fmt.Sprintf("%d of %d tests fail (%s)", failed, len(ex.Tests), first)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
