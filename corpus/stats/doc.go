// Package stats summarizes corpus folders (`triage corpus stats`): trees,
// nodes and tasks per split and per task source, the fraction of trees with
// a fix, the depth of the shallowest fix, the edge labels, tokens and bytes,
// and from the manifests the tasks left out, the per-task time limits and
// where the build's time went.
//
// Imports: corpus, corpus/limits, corpus/shard, corpus/manifest.
package stats
