// Package corpus holds what every package of triage shares: tasks and their
// JSONL format, programs with their test results (Execution), repair trees
// with their edges and labels, the small interfaces a tree builder or a
// live search is wired with (Executor, Proposer, OptionsExecutor), one
// node's expansion (Expander: propose, revise, run), and the errors that
// say the caller gave bad input (InputError, FieldError). The jobs built on
// these types each have a subpackage:
//
//   - limits: the time-limit policy (a task's limit from its reference's
//     run time, on the CPU or the wall clock);
//   - shard: the Parquet shard files (schema, writer, streaming reader);
//   - manifest: a build's manifest, and merging and replicating corpora;
//   - build: the exhaustive tree builder, its scheduler, the input checks
//     and the time breakdown;
//   - stats: a corpus's statistics;
//   - convert: public task sets (MBPP, Exercism, TheAlgorithms) into tasks.
//
// Imports: nothing of triage (the foundation every other package builds
// on).
package corpus
