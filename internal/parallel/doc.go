// Package parallel owns piopt's one worker loop: an index range run on
// several goroutines, each with its own scratch, stopping on cancellation,
// and returning the error of the lowest failing index, so that what a caller
// sees does not depend on scheduling or on the number of workers.
package parallel
