package data

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCacheEntry reads arbitrary bytes as the payload of a binary cache
// entry (what follows its key), with and without document ids: no panic,
// no allocation beyond what the bytes can hold, and a dataset returned is
// valid, its features finite (an entry is never trusted: its folder may be
// writable by others).
func FuzzCacheEntry(f *testing.F) {
	dir := f.TempDir()
	for _, ds := range []*Dataset{smallDataset(), cacheFuzzIDs(f)} {
		p := filepath.Join(dir, "e.dataset")
		if err := writeCache(p, "k", ds, 7); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		payload := b[16+1:] // after the magic, version, key length and key "k"
		if got, _ := readPayloadBytes(payload, ds.ids != nil); got == nil {
			f.Fatal("the seed entry does not read back")
		}
		f.Add(payload, ds.ids != nil)
	}
	f.Fuzz(func(t *testing.T, b []byte, ids bool) {
		ds, _ := readPayloadBytes(b, ids)
		if ds == nil {
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("accepted an invalid dataset: %v", err)
		}
		for i, v := range ds.Features {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("accepted feature %d = %v", i, v)
			}
		}
	})
}

// readPayloadBytes reads b as the payload of an entry of key "k".
func readPayloadBytes(b []byte, ids bool) (*Dataset, uint64) {
	crc := crc32.New(castagnoli)
	head := binary.LittleEndian.AppendUint32([]byte(cacheMagic), cacheVersion)
	crc.Write(append(binary.LittleEndian.AppendUint32(head, 1), 'k'))
	return readCachePayload(io.TeeReader(bytes.NewReader(b), crc), crc, int64(len(b)), ids)
}

// cacheFuzzIDs is a small dataset with document ids.
func cacheFuzzIDs(f *testing.F) *Dataset {
	ds, err := Read(bytes.NewReader([]byte("1 qid:1 1:0.5 # a\n0 qid:1 1:2 # b\n2 qid:2 1:1 # c\n")), "ids.txt",
		ReadOptions{NoCache: true, DocIDs: DocComment})
	if err != nil {
		f.Fatal(err)
	}
	return ds
}
