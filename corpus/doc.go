// Package corpus holds the types every other package of triage shares: tasks,
// programs with their test results, repair trees with their edges and labels,
// and the small interfaces (Executor, Proposer) that a tree builder or a live
// search is wired with. It also owns the task format, the Parquet corpus
// format and the exhaustive tree builder. It imports no other triage package.
//
// Imports: nothing of triage outside corpus (the foundation every other
// package builds on).
package corpus
