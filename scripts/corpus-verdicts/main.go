// Command corpus-verdicts compares the statuses of the programs that two or
// more corpora share (the same tree and program text), for side-by-side
// builds of one shard with different binaries (scripts/cpu-limits-build.sh).
//
//	go run ./scripts/corpus-verdicts DIR_A DIR_B [DIR_C ...]
//
// prints, for each corpus after the first, how many programs it shares with
// the first, how many have the same status, and the changes by kind.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"triage/corpus"
)

type key struct{ tree, program string }

func statuses(dir string) (map[key]string, error) {
	out := map[key]string{}
	err := corpus.ScanTrees([]string{dir}, func(rows []corpus.NodeRow) error {
		for _, r := range rows {
			out[key{r.TreeID, r.ProgramSHA}] = r.Status
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read corpus %s: %w", dir, err)
	}
	return out, nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: corpus-verdicts DIR_A DIR_B [DIR_C ...]")
		os.Exit(2)
	}
	base, err := statuses(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, dir := range os.Args[2:] {
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
			os.Args[1], dir, len(base), len(other), common, same, strings.Join(kinds, ", "))
	}
}
