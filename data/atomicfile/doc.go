// Package atomicfile writes output files so that a reader never sees a
// half-written one: data goes to a temporary file in the destination's
// folder, which is synced and renamed over the destination on Commit (Abort
// removes it and leaves the destination untouched). An interrupted run thus
// leaves either the old file or the complete new one.
package atomicfile
