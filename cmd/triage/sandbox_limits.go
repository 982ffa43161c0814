package main

import (
	"github.com/spf13/cobra"

	"triage/search/sandbox"
)

// limitsFlag is the value of --sandbox-limits.
type limitsFlag struct{ p *sandbox.LimitsPolicy }

func (f limitsFlag) String() string { return string(*f.p) }
func (f limitsFlag) Type() string   { return "require|warn" }
func (f limitsFlag) Set(s string) error {
	p, err := sandbox.ParseLimitsPolicy(s)
	if err == nil {
		*f.p = p
	}
	return err
}

// addSandboxLimitsFlag adds --sandbox-limits to a command that starts a
// sandbox and sets *p to its value: require (the default) refuses to run
// (exit 2) when the workers' cgroup memory and process limits cannot be
// set up, warn runs without them.
func addSandboxLimitsFlag(c *cobra.Command, p *sandbox.LimitsPolicy) {
	*p = sandbox.LimitsRequire
	c.Flags().Var(limitsFlag{p}, "sandbox-limits", "require: refuse to run (exit 2) without the sandbox's cgroup memory and process limits; warn: run without them (docs/deploy.md)")
}
