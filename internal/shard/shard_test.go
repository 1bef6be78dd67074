package shard

import (
	"hash/fnv"
	"strconv"
	"testing"
)

// TestOfIsFNV1a: the hash is the standard library's FNV-1a 64 of the qid's
// bytes, so any language's FNV-1a gives the same shards.
func TestOfIsFNV1a(t *testing.T) {
	for _, qid := range []string{"", "1", "10", "qid-42", "31337"} {
		h := fnv.New64a()
		h.Write([]byte(qid))
		for _, n := range []int{1, 2, 3, 7} {
			if got, want := Of(qid, n), int(h.Sum64()%uint64(n)); got != want {
				t.Fatalf("Of(%q, %d) = %d, want %d", qid, n, got, want)
			}
		}
	}
	// Pinned values: a change of hash would reshuffle every job's shards.
	for qid, want := range map[string]int{"1": 0, "2": 1, "3": 0, "10": 0} {
		if got := Of(qid, 2); got != want {
			t.Errorf("Of(%q, 2) = %d, want %d", qid, got, want)
		}
	}
}

// TestOfSpreads: 1000 consecutive qids split evenly enough over 3 shards.
func TestOfSpreads(t *testing.T) {
	var count [3]int
	for q := range 1000 {
		count[Of(strconv.Itoa(q), 3)]++
	}
	for s, c := range count {
		if c < 280 || c > 390 {
			t.Errorf("shard %d has %d of 1000 queries", s, c)
		}
	}
}

func TestCheck(t *testing.T) {
	if Check(0, 1) != nil || Check(2, 3) != nil || Check(3, 3) == nil || Check(-1, 2) == nil || Check(0, 0) == nil {
		t.Fatal("Check accepts or refuses the wrong ranks")
	}
}
