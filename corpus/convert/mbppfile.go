package convert

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"

	"triage/corpus"
)

// ReadMBPPFile reads MBPP's mbpp.jsonl at path (ReadMBPP) and warns when
// its sha256 is not the verified original's. An unreadable or malformed
// file is bad input.
func ReadMBPPFile(path string) ([]MBPPProblem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &corpus.InputError{Err: err}
	}
	defer f.Close()
	h := sha256.New()
	problems, err := ReadMBPP(io.TeeReader(f, h))
	if err != nil {
		return nil, corpus.BadInput("%s: %v", path, err)
	}
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != MBPPSHA256 {
		slog.Warn("input is not the verified original mbpp.jsonl", "sha256", sum, "want", MBPPSHA256)
	}
	return problems, nil
}

// WriteText writes the report as `triage tasks convert` prints it: the
// tasks and challenge asserts left out, then one summary line naming out,
// the task file written.
func (rep MBPPReport) WriteText(w io.Writer, out string) error {
	for _, d := range rep.Dropped {
		fmt.Fprintf(w, "left out %s: %s\n", d.TaskID, d.Reason)
	}
	for _, d := range rep.ChallengesDropped {
		fmt.Fprintf(w, "challenge assert left out %s %s: %s\n", d.TaskID, d.Test, d.Reason)
	}
	_, err := fmt.Fprintf(w, "%d rows, %d tasks written to %s (train %d, val %d, test %d), %d left out; %d tests, %d of %d challenge asserts kept\n",
		rep.Rows, rep.Tasks, out, rep.Splits[corpus.SplitTrain], rep.Splits[corpus.SplitVal], rep.Splits[corpus.SplitTest],
		len(rep.Dropped), rep.Tests, rep.ChallengesKept, rep.Challenges)
	return err
}
