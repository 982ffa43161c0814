// Package shard reads and writes the Parquet shard files of a corpus
// (zstd, one row per node, whole trees of consecutive tasks): the row
// schema (NodeRow) and its round trip with corpus.Tree, the shard writer,
// listing and checking the shards of corpus folders, quick scans, and the
// streaming tree reader that decodes only the columns its caller reads.
// docs/corpus-schema.md describes the format.
//
// Imports: corpus.
package shard
