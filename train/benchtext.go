package train

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteBench writes the results of BenchTrain under a header line as
// `triage bench train` prints them.
func WriteBench(out io.Writer, header string, res []BenchResult) error {
	fmt.Fprintln(out, header)
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "batch\tfirst step s\tstep s\ttokens/s\tMFU\t")
	for _, r := range res {
		fmt.Fprintf(w, "%d\t%.1f\t%.3f\t%.0f\t%.3f\t\n", r.Batch, r.FirstStepS, r.StepS, r.TokensPerSec, r.MFU)
	}
	return w.Flush()
}
