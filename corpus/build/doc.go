// Package build grows exhaustive repair trees into a corpus (`triage corpus
// build`): the input checks every task passes first (its reference, timed,
// passes; its roots load and fail), each task's time limit from its
// reference, the tree builder (every proposed edit of every expandable node
// revised and run, identical programs cached), the scheduler that grows
// several trees per sandbox worker and writes shards off the critical path,
// resume and i/n slices, and the breakdown of where the time went.
//
// Imports: corpus, corpus/limits, corpus/shard, corpus/manifest.
package build
