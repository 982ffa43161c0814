package sandbox

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the result as `triage bench sandbox` prints it: both
// sides' throughput, the ratio and the executor's CPU by phase.
func (res BenchResult) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXECUTOR\tRUNS\tSECONDS\tSUITES/S")
	fmt.Fprintf(tw, "sandbox pool\t%d\t%.2f\t%.1f\n", res.Runs, res.ExecutorSeconds, res.ExecutorSuitesPerS)
	fmt.Fprintf(tw, "pytest per process\t%d\t%.2f\t%.1f\n", res.Runs, res.PytestSeconds, res.PytestSuitesPerS)
	tw.Flush()
	fmt.Fprintf(w, "ratio %.1fx, verdict mismatches %d, workers %d\nprotections: %s\n",
		res.Ratio, res.VerdictMismatches, res.Workers, strings.Join(res.Protections, " "))
	fmt.Fprintf(w, "CPU per suite: executor %.1f ms, pytest %.1f ms; the executor's by phase:\n", res.ExecutorCPUMSPerSuite, res.PytestCPUMSPerSuite)
	for _, ph := range res.ExecutorPhases {
		fmt.Fprintf(w, "  %-15s %7.2f ms\n", ph.Phase, ph.MSPerSuite)
	}
	fmt.Fprintf(w, "reference ids: %d test files, %d of them read from their text without a collection\n",
		res.ReferenceCollections, res.ReferenceIDsFromText)
	fmt.Fprintf(w, "direct runner: %d runs, %d handed back to pytest; %d runs taken by a judge kept from the run before\n",
		res.DirectRuns, res.DirectFallbacks, res.KeptJudgeRuns)
	fmt.Fprintf(w, "fork servers: %d worker starts, %d MiB of their memory in huge pages\n",
		res.ForkServerWorkers, 2*res.ForkServerHugePages)
	for _, m := range res.Mismatches {
		fmt.Fprintln(w, "mismatch:", m)
	}
	return nil
}
