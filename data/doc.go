// Package data owns piopt's view of learning-to-rank data and of the files
// it writes about them:
//
//   - the LETOR/SVMlight reader (Load, Read): plain or gzip text, parsed in
//     parallel over chunks of whole lines, with errors (*ParseError, kinds
//     ErrLabel, ErrQID, ErrFeature, ...) that name file, line and field;
//   - the in-memory Dataset of flat slices (labels, dense float32 features,
//     query offsets, qids) and its binary cache, never trusted without
//     checking its key and checksum;
//   - slate logs (LogReader, LogWriter): one `qid<TAB>d1,d2,...<TAB>reward`
//     impression per line after a `# piopt-log` header;
//   - PI-OPT's targets files (Targets): one row per logged query, candidate
//     document and slot, with the target φ̂ and its weight;
//   - logs with a policy in every row (LogRow): Parquet logs
//     (ReadParquetLog), read with github.com/parquet-go/parquet-go — pure
//     Go, maintained, reads nested LIST and struct columns, streamed a
//     page per column (parquetlog.go says why this library).
//
// In memory a document is its 0-based position inside its query's block; in
// files it is named by that position or, for a Dataset read with DocComment
// (--doc-ids comment), by the id in its line's comment (Dataset.AppendDoc,
// Dataset.findDoc). A query is its raw qid string and its index in the
// Dataset. Floats
// are written in strconv's shortest round-trip form, so what is read back is
// bit-identical to what was written.
//
// data sits on piopt's lowest floor and imports no other piopt package
// besides its own subpackages: synth generates deterministic MSLR-shaped
// folds, atomicfile writes output files atomically and parallel is piopt's
// one worker loop. Progress reaches the reader as a plain callback
// (ReadOptions.Progress).
package data
