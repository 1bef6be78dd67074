// Package atomicfile writes output files so that a reader never sees a
// half-written one: data goes to a temporary file in the destination's
// folder, which is synced and renamed over the destination on Commit (Abort
// removes it and leaves the destination untouched). An interrupted run thus
// leaves either the old file or the complete new one.
//
// A symbolic link is followed and its target written atomically, the link
// kept. A special file (a device such as /dev/null, a FIFO) is written
// directly, since renaming over it would destroy it. Temporary files are
// named ".NAME.piopt-tmp-PID-RANDOM"; those a killed writer left behind are
// removed by the next write of the same file.
package atomicfile
