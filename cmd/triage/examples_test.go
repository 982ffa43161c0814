package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpExamplesParse runs the flags and arguments of every example in
// every command's help through that command's parser and argument check,
// so an example that would exit 2 fails here.
func TestHelpExamplesParse(t *testing.T) {
	root := newCLI()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, ex := range exampleLines(c.Example) {
			n++
			// The examples quote nothing: fields are the arguments.
			args := strings.Fields(ex)
			if args[0] != "triage" {
				continue // another tool's command (curl, source)
			}
			cli := newCLI()
			cmd, rest, err := cli.Find(args[1:])
			if err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), ex, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: flags: %v", c.CommandPath(), ex, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: example %q: arguments: %v", c.CommandPath(), ex, err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 20 {
		t.Errorf("only %d examples found", n)
	}
}

// exampleLines returns the commands of a help example: continuation lines
// joined, comments, shell redirections and process substitutions dropped.
func exampleLines(example string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if cont := strings.HasSuffix(line, `\`); cont {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		cmd := cur.String()
		cur.Reset()
		if i := strings.Index(cmd, "<("); i >= 0 { // source <(triage completion bash)
			cmd = strings.TrimSuffix(cmd[i+2:], ")")
		}
		if i := strings.Index(cmd, " #"); i >= 0 { // a comment
			cmd = cmd[:i]
		}
		if i := strings.IndexAny(cmd, "><|"); i >= 0 {
			cmd = cmd[:i]
		}
		if cmd = strings.TrimSpace(cmd); cmd != "" && !strings.HasPrefix(cmd, "#") {
			out = append(out, cmd)
		}
	}
	return out
}
