package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"triage/corpus"
	"triage/search/serve"
)

// TestBenchServeValidate: bench serve's checks name the flag, and the token
// file's content, trimmed, becomes the load test's token.
func TestBenchServeValidate(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tok, []byte(" secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(edit func(*benchServeConfig)) (benchServeConfig, []string, error) {
		c := benchServeConfig{load: serve.LoadOptions{Clients: 1, Duration: time.Second, EdgesPerRequest: 3, Timeout: time.Second}, modes: "nobatch,batch"}
		edit(&c)
		modes, err := c.validate()
		return c, modes, err
	}
	c, modes, err := check(func(c *benchServeConfig) { c.tokenFile = tok })
	if err != nil || c.load.Token != "secret" || len(modes) != 2 || modes[0] != "nobatch" {
		t.Fatalf("valid config: token %q modes %v err %v", c.load.Token, modes, err)
	}
	for _, tc := range []struct {
		edit func(*benchServeConfig)
		want string
	}{
		{func(c *benchServeConfig) { c.load.Clients = 0 }, "--clients, --duration, --edges and --request-timeout must be positive"},
		{func(c *benchServeConfig) { c.modes = "batch,fast" }, `--modes: unknown value "fast", want batch, nobatch`},
		{func(c *benchServeConfig) { c.tokenFile = tok + ".missing" }, "--token-file: open " + tok + ".missing: no such file or directory"},
	} {
		_, _, err := check(tc.edit)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}
