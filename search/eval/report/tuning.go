package report

import (
	"io"
	"strconv"
	"strings"

	"triage/search/eval"
)

// WriteTuning writes the grid of a tuning of policy name as the Markdown
// table `triage tune` prints, the chosen point marked, and the file out
// the choice went to.
func WriteTuning(w io.Writer, name string, tu *eval.Tuning, out string) error {
	mb := strconv.Itoa(tu.Budget)
	var b strings.Builder
	b.WriteString("| " + name + " | E[T] | AUSC(" + mb + ") |\n|---|---|---|\n")
	for i, r := range tu.Points {
		mark := ""
		if i == tu.Best {
			mark = " (chosen)"
		}
		b.WriteString("| " + r.Params.String() + mark + " | " + strconv.FormatFloat(r.ET, 'f', 2, 64) + " | " + strconv.FormatFloat(r.AUSC, 'f', 3, 64) + " |\n")
	}
	b.WriteString("\nwrote " + out + "\n")
	_, err := w.Write([]byte(b.String()))
	return err
}
