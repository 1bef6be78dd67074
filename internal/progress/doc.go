// Package progress draws a one-line progress indicator for long work on a
// terminal, and nothing at all when the output is not a terminal, so logs and
// pipes stay clean. Libraries never see a Bar: they take a plain
// func(n int64) callback ("n more units done"), and callers pass Bar.Add,
// which a nil *Bar accepts.
package progress
