package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoUnexplainedLongFunctions: every non-test function of the module over
// 80 lines says in its doc comment why it is long.
func TestNoUnexplainedLongFunctions(t *testing.T) {
	fs, err := Scan("../..", DefaultMax)
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, f := range fs {
		if f.Reason {
			long++
			continue
		}
		t.Errorf("%s: %d lines, and its doc comment does not say why it is long (\"long because ...\"): split it, or say why", f.Path+":"+f.Name, f.Lines)
	}
	t.Logf("%d functions over %d lines give a reason", long, DefaultMax)
}

// TestScan: a function over the limit is found with its length, a method
// with its receiver, a reason is read from the doc comment, and test files
// and short functions are not listed.
func TestScan(t *testing.T) {
	dir := t.TempDir()
	body := func(n int) string { return strings.Repeat("\t_ = 1\n", n-2) }
	src := fmt.Sprintf("package p\n\ntype T struct{}\n\nfunc short() {\n%s}\n\n// Long because it is a table.\nfunc (t *T) table() {\n%s}\n\nfunc bare() {\n%s}\n",
		body(80), body(81), body(90))
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc long() {\n"+body(100)+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := Scan(dir, 80)
	if err != nil {
		t.Fatal(err)
	}
	want := []Func{{Path: "p.go", Name: "bare", Lines: 90}, {Path: "p.go", Name: "T.table", Lines: 81, Reason: true}}
	if fmt.Sprint(fs) != fmt.Sprint(want) {
		t.Errorf("Scan = %v, want %v", fs, want)
	}
}
