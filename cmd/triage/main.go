// Command triage builds repair-tree corpora, evaluates search policies on
// them, and runs the learned priority model. See `triage --help`.
//
// Imports: everything; nothing imports it. Each command parses its flags and
// calls into the packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"triage/corpus"
	"triage/search/proposer/openai"
	"triage/search/sandbox"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the job failed
	exitUsage   = 2 // bad usage or bad input
)

func main() {
	// The sandbox re-executes this binary as its isolated child; that path
	// must not build the CLI or touch flags.
	if runChildIfRequested() {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newCLI().ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	msg := err.Error()
	if errors.Is(err, openai.ErrUnauthorized) && !strings.Contains(msg, "--api-key-env") {
		msg += " (the key is read from the environment variable --api-key-env names, OPENAI_API_KEY by default)"
	}
	fmt.Fprintln(os.Stderr, "triage:", msg)
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, sandbox.ErrNoLimits) {
		return exitUsage
	}
	return exitFailure
}

// usageError marks bad usage or bad input: exit code 2. The packages
// return the same type (corpus.BadInput) for bad input they find.
type usageError = corpus.InputError

// badInput formats a usage error.
var badInput = corpus.BadInput
