// Package manifest is a corpus build's manifest (manifest.json, or
// manifest-i-of-n.json for a slice): its settings, which a resumed build
// must match, the complete shards with their tasks' limits and skip
// reasons, the versions that wrote it and where the time went (Breakdown).
// It also makes new corpora from built ones: Merge writes the union of
// corpus folders (the slices of an i/n build, say) into one, and Replicate
// copies a small corpus many times for scale tests.
//
// Imports: corpus, corpus/limits, corpus/shard.
package manifest
