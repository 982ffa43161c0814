package tokenizer

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes the result as `triage bench tokenizer` prints it: the
// throughput, then one line per pathological input.
func (res BenchResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "text %d bytes, %d tokens (%.2f bytes/token)\n", res.Bytes, res.Tokens, res.BytesPerToken)
	fmt.Fprintf(w, "cold cache %.1f MB/s, warm cache %.1f MB/s (%d passes; target >= 5 MB/s)\n",
		res.ColdMBps, res.WarmMBps, res.Passes)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATHOLOGICAL\tBYTES\tTOKENS\tMIN MS\tMAX MS\tUNDER 100 MS")
	for _, p := range res.Pathological {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%v\n", p.Name, p.Bytes, p.Tokens, p.MinMillis, p.MaxMillis, p.MinMillis < 100)
	}
	return tw.Flush()
}
