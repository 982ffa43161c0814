package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"text/tabwriter"

	"triage/policy"
)

// LoadRow is one measured configuration of `triage bench serve`: the
// server's mode (batch, nobatch, or external), its scorer, and the result.
type LoadRow struct {
	Mode   string `json:"mode"`
	Scorer string `json:"scorer"`
	LoadResult
}

// LoadTestInProcess starts a server on a loopback port with scorer sc
// (named name in the row), runs the load test o against it and shuts it
// down.
func LoadTestInProcess(ctx context.Context, sc policy.Scorer, mode, name string, o LoadOptions) (LoadRow, error) {
	srv, err := New(Options{Scorer: sc, RequestTimeout: o.Timeout, MaxEdges: max(1024, o.EdgesPerRequest)})
	if err != nil {
		return LoadRow{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return LoadRow{}, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	o.URL = "http://" + ln.Addr().String()
	res, err := LoadTest(ctx, o)
	stop()
	if serr := <-served; err == nil {
		err = serr
	}
	return LoadRow{Mode: mode, Scorer: name, LoadResult: res}, err
}

// WriteLoadTable writes the rows as the right-aligned table `triage bench
// serve` prints.
func WriteLoadTable(w io.Writer, rows []LoadRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "MODE\tSCORER\tCLIENTS\tSECONDS\tREQUESTS\tERRORS\tREQ/S\tEDGES/S\tP50 MS\tP90 MS\tP99 MS\tMAX MS\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", r.Mode, r.Scorer, r.Clients,
			r.Seconds, r.Requests, r.Errors, r.RequestsPerSec, r.EdgesPerSec, r.P50Ms, r.P90Ms, r.P99Ms, r.MaxMs)
	}
	return tw.Flush()
}

// LoadErr is the error of a load test whose requests failed (nil if none
// did): the first row with errors, its count and its first error.
func LoadErr(rows []LoadRow) error {
	for _, r := range rows {
		if r.Errors > 0 {
			return fmt.Errorf("%s: %d of %d requests failed; first: %s", r.Mode, r.Errors, r.Requests, r.FirstError)
		}
	}
	return nil
}
