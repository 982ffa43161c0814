package serve_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"testing"

	"triage/checkpoints"
	"triage/model"
	"triage/policy"
	"triage/search/serve"
	"triage/search/serve/api"
)

// defaultScorer loads the embedded default checkpoint (TRIAGE_CHECKPOINT
// names another) on the CPU backend (GOMLX_BACKEND when set). It skips
// when this build embeds no default and none is named.
func defaultScorer(t *testing.T) policy.Scorer {
	t.Helper()
	path := os.Getenv("TRIAGE_CHECKPOINT")
	if path == "" {
		p, err := checkpoints.DefaultPath()
		if errors.Is(err, checkpoints.ErrNoDefault) {
			t.Skipf("no default checkpoint: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		path = p
	}
	b, err := model.LoadCheckpoint(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	backend := os.Getenv("GOMLX_BACKEND")
	if backend == "" {
		backend = model.DefaultBackend
	}
	be, err := model.NewBackend(backend)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := b.Scorer(be, 64)
	if err != nil {
		be.Finalize()
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close(); be.Finalize() })
	return sc
}

// TestLearnedSessionMatchesReplay: with the real default checkpoint, a
// server session of the learned policy (and the hybrid), driven by the Go
// client and by the Python client over the recorded trees, makes the
// decisions of a direct replay of the same tree (search.Run, as `triage
// eval` replays): the same edges in the same order, the same fix,
// expansions and tokens. TestSessionMatchesReplay covers every policy on
// the stand-in scorer; this one covers the model's own scores.
func TestLearnedSessionMatchesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("scores every edge of the parity trees with the model")
	}
	scorer := defaultScorer(t)
	srv, err := serve.New(serve.Options{Scorer: scorer})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	defer srv.Close()
	c := &api.Client{BaseURL: hs.URL}
	var cases []parityCase
	for _, name := range policy.Scored {
		for _, batch := range []int{1, 2} {
			cases = append(cases, newCase(name, 1, batch))
		}
	}
	for _, cs := range cases {
		p, err := newParityPolicy(cs, scorer)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range parityTrees() {
			want, err := directSession(context.Background(), tr, p, cs.Seed, cs.Batch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := driveSession(context.Background(), c, tr, cs)
			if err != nil {
				t.Fatalf("%+v on %s: %v", cs, tr.ID, err)
			}
			if err := same(got, want); err != nil {
				t.Errorf("%+v on %s: session %v", cs, tr.ID, err)
			}
		}
	}
	checkPythonParity(t, scorer, cases)
}
