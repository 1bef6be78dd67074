package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// withTrailer returns content with its checksum line.
func withTrailer(content string) []byte {
	sum := sha256.Sum256([]byte(content))
	return []byte(content + trailerPrefix + hex.EncodeToString(sum[:]) + "\n")
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{{"1/1", Shard{1, 1}, true}, {"3/7", Shard{3, 7}, true}, {"1000000/1000000", Shard{1000000, 1000000}, true},
		{"0/3", Shard{}, false}, {"4/3", Shard{}, false}, {"1/0", Shard{}, false}, {"1/1000001", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false}} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestMergedCommand(t *testing.T) {
	got := mergedCommand("piopt evaluate --logs a.log --shard 2/3 --target feature:2 --partial p.2 --shard=1/2", "my est.json")
	if want := "piopt evaluate --logs a.log --target feature:2 --json 'my est.json'"; got != want {
		t.Errorf("mergedCommand = %q, want %q", got, want)
	}
}

// TestParsePartial: a partial's checksum covers every byte before its
// last line; its header names its kind and shard.
func TestParsePartial(t *testing.T) {
	good := withTrailer("# piopt-partial v1 kind=impute shard=2/3\n# piopt-targets v1 slots=3\n@\t4\t1\n1\t0\t1\t0.5\t1\n")
	p, err := parsePartial("p", good)
	if err != nil || p.shard != (Shard{2, 3}) || p.header["kind"] != "impute" {
		t.Fatalf("parsePartial: %+v, %v", p, err)
	}
	b, err := parseImputeBody("p", p.body)
	if err != nil || len(b.blocks) != 1 || b.blocks[0].q != 4 || string(b.blocks[0].rows) != "1\t0\t1\t0.5\t1\n" {
		t.Fatalf("parseImputeBody: %+v, %v", b, err)
	}
	bad := bytes.Clone(good)
	bad[20] ^= 1
	for _, x := range [][]byte{bad, good[:len(good)-1], withTrailer("# piopt-partial v1 kind=impute shard=4/3\n"), withTrailer("# piopt-partial v1 kind=train shard=1/1\n")} {
		if _, err := parsePartial("p", x); err == nil {
			t.Errorf("parsePartial accepted %q", x)
		}
	}
	for _, body := range []string{"# piopt-targets v1\n@\t4\t2\nrow\n", "# piopt-targets v1\n@\t4\t1\nrow\n@\t3\t1\nrow\n", "# piopt-targets v1\nrow\n"} {
		if _, err := parseImputeBody("p", []byte(body)); err == nil {
			t.Errorf("parseImputeBody accepted %q", body)
		}
	}
}

// FuzzReadPartial: the partial reader and the impute body reader return an
// error or a consistent result, never panic, whatever the bytes.
func FuzzReadPartial(f *testing.F) {
	f.Add([]byte("# piopt-partial v1 kind=impute shard=1/1\n# piopt-targets v1 slots=3\n@\t0\t1\n1\t0\t1\t0.5\t1\n"), true)
	f.Add([]byte("# piopt-partial v1 kind=evaluate shard=2/2\n{}\n"), true)
	f.Add([]byte("garbage"), false)
	f.Fuzz(func(t *testing.T, content []byte, sign bool) {
		in := content
		if sign {
			in = withTrailer(string(content))
		}
		p, err := parsePartial("fuzz", in)
		if err != nil {
			return
		}
		if p.shard.I < 1 || p.shard.I > p.shard.N || p.shard.N > MaxShards {
			t.Fatalf("shard %v accepted", p.shard)
		}
		b, err := parseImputeBody("fuzz", p.body)
		if err != nil {
			return
		}
		for i, blk := range b.blocks {
			if i > 0 && blk.q <= b.blocks[i-1].q || bytes.Count(blk.rows, []byte{'\n'}) < 1 {
				t.Fatalf("block %d: %+v", i, blk)
			}
		}
	})
}
