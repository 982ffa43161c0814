// Package convert turns public Python task sets into task files
// (corpus.Task), keeping only what the sandbox confirms. Each source has its
// own file:
//
//   - mbpp.go, mbppfile.go: MBPP (Austin et al., CC-BY-4.0), read from its
//     mbpp.jsonl: one task per MBPP task, its test file one pytest function
//     per assert, with MBPP's own split (docs/tasks.md).
//   - exercism.go (read, as thealgorithms.go, from a checked-out folder at
//     a pinned commit): Exercism's Python track (github.com/exercism/python,
//     MIT). One task per practice exercise: the exercise's
//     .meta/example.py is the reference, its unittest file the tests, with
//     its import of the exercise module rewritten to `solution`
//     (RewriteImports) and small helper modules of the tests inlined; the
//     question is the exercise's instructions.
//   - thealgorithms.go: TheAlgorithms/Python (MIT). One task per
//     module-level function with doctests: extract.py (run with the
//     sandbox's Python, reading the files with ast, never running them)
//     cuts the function out with what it needs of its module and strips the
//     examples from its docstrings; each doctest example becomes a pytest
//     test that compares the value where the expected output is a Python
//     literal (ParseWant), the printed text otherwise, or the exception
//     raised.
//
// check.go runs what Exercism and TheAlgorithms share: every converted task goes through the
// checks `triage tasks validate` runs (build.CheckTasks), tasks that fail
// them or whose reference is much slower than the others' are left out,
// and the report lists what was left out and why. Tasks carry their source,
// licence, origin (a URL with the upstream commit) and a split written out
// by corpus.SplitFor, so a file does not depend on the hash rule staying the
// same.
//
// Imports: corpus, corpus/limits and corpus/build (the input checks).
package convert
