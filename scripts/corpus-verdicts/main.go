// Command corpus-verdicts compares the statuses of the programs that two or
// more corpora share (the same tree and program text), for side-by-side
// builds of one shard with different binaries (scripts/cpu-limits-build.sh).
//
//	go run ./scripts/corpus-verdicts DIR_A DIR_B [DIR_C ...]
//
// prints, for each corpus after the first, how many programs it shares with
// the first, how many have the same status, and the changes by kind. With
// -feedback first, a program's pass rate and feedback text (object
// addresses aside) count as part of its status; with -show N as well, the
// first N changed programs are printed, each corpus's text of it.
package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"triage/corpus/shard"
)

type key struct{ tree, program string }

var (
	withFeedback  bool
	objectAddress = regexp.MustCompile(`0x[0-9a-f]{6,}|[0-9a-f]{12}|[0-9]{12,}`)
)

func statuses(dir string) (map[key]string, error) {
	out := map[key]string{}
	err := shard.ScanTrees([]string{dir}, func(rows []shard.NodeRow) error {
		for _, r := range rows {
			s := r.Status
			if withFeedback {
				s = fmt.Sprintf("%s %.6f %s", r.Status, r.PassRate, objectAddress.ReplaceAllString(r.Feedback, "0x…"))
			}
			out[key{r.TreeID, r.ProgramSHA}] = s
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read corpus %s: %w", dir, err)
	}
	return out, nil
}

func main() {
	args := os.Args[1:]
	show := 0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-feedback":
			withFeedback, args = true, args[1:]
		case args[0] == "-show" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 0 {
				fmt.Fprintf(os.Stderr, "corpus-verdicts: -show wants a count, got %q\n", args[1])
				os.Exit(2)
			}
			show, args = n, args[2:]
		default:
			args = nil
		}
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: corpus-verdicts [-feedback] [-show N] DIR_A DIR_B [DIR_C ...]")
		os.Exit(2)
	}
	base, err := statuses(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, dir := range args[1:] {
		other, err := statuses(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		common, same := 0, 0
		changes := map[string]int{}
		for k, s := range base {
			s2, ok := other[k]
			if !ok {
				continue
			}
			common++
			if s == s2 {
				same++
				continue
			}
			if show > 0 {
				show--
				fmt.Printf("tree %s program %s:\n  %s: %q\n  %s: %q\n", k.tree, k.program, args[0], s, dir, s2)
			}
			if withFeedback {
				changes[strings.Fields(s)[0]+" -> "+strings.Fields(s2)[0]+" (pass rate or feedback)"]++
			} else {
				changes[s+" -> "+s2]++
			}
		}
		var kinds []string
		for c, n := range changes {
			kinds = append(kinds, fmt.Sprintf("%s: %d", c, n))
		}
		sort.Strings(kinds)
		fmt.Printf("%s vs %s: %d and %d programs, %d shared, %d with the same status; changed: %s\n",
			args[0], dir, len(base), len(other), common, same, strings.Join(kinds, ", "))
	}
}
