// Package shard assigns queries to the shards of a distributed run: the
// workers of `piopt train --world N` (and the shards of any command that
// splits its queries later). The assignment depends on the query's id
// alone, so every machine and every run agrees on it without talking.
package shard

import "fmt"

// FNV-1a 64's offset basis and prime.
const (
	offset64 = 14695981039346656037
	prime64  = 1099511628211
)

// Of returns the 0-based shard, among n, of the query whose id (the text
// after "qid:" in a LETOR file, as written) is qid: FNV-1a 64 of qid's
// bytes, modulo n. See docs/distributed.md. It takes the qid as a string
// or as bytes (a log reader's field), without allocating.
func Of[T ~string | ~[]byte](qid T, n int) int {
	h := uint64(offset64)
	for i := 0; i < len(qid); i++ {
		h ^= uint64(qid[i])
		h *= prime64
	}
	return int(h % uint64(n))
}

// Check refuses a rank outside 0..world−1 or a world below 1.
func Check(rank, world int) error {
	if world < 1 {
		return fmt.Errorf("world size %d: want at least 1", world)
	}
	if rank < 0 || rank >= world {
		return fmt.Errorf("rank %d outside 0..%d", rank, world-1)
	}
	return nil
}
