package model

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteBenchScore writes the results of BenchScore under a header line as
// `triage bench score` prints them.
func WriteBenchScore(out io.Writer, header string, res []BenchResult) error {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(out, header)
	fmt.Fprintln(w, "mode\tedges\trow tokens\trows/call\tedges/s\ttokens/s\twarm-up s\t")
	for _, r := range res {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%.2f\t%.0f\t%.1f\t\n", r.Mode, r.Edges, r.RowTokens, r.RowsPerCall,
			r.EdgesPerSec, r.TokensPerSec, r.WarmupSeconds)
	}
	return w.Flush()
}
