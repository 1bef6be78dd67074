package data

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/piopt/piopt/data/synth"
)

// benchFile returns an MSLR-shaped synth file of at least 200 MB under
// os.TempDir()/piopt-bench, generating it on first use.
func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "piopt-bench")
	path := filepath.Join(dir, "mslr-shaped-1700q.txt")
	if st, err := os.Stat(path); err == nil && st.Size() >= 200<<20 {
		return path, st.Size()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Logf("generating %s", path)
	f, err := synth.WriteFile(context.Background(), path, synth.Config{Queries: 1700, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if f.Bytes < 200<<20 {
		b.Fatalf("%s has only %d bytes", path, f.Bytes)
	}
	return path, f.Bytes
}

// BenchmarkLoad measures reading an MSLR-shaped file of ≥ 200 MB: "text"
// parses it (the file itself sits in the OS page cache after the first
// round), "cache" loads it from the binary cache, which includes hashing the
// whole source file to validate the entry.
func BenchmarkLoad(b *testing.B) {
	path, size := benchFile(b)
	for _, threads := range []int{0, 1} {
		name := "text"
		if threads == 1 {
			name = "text-1thread"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			c := cpuTime()
			for b.Loop() {
				if _, err := Load(path, ReadOptions{NoCache: true, threads: threads}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, size, cpuTime()-c)
		})
	}
	b.Run("cache", func(b *testing.B) {
		opt := ReadOptions{CacheDir: b.TempDir()}
		if _, err := Load(path, opt); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size)
		c := cpuTime()
		for b.Loop() {
			if _, err := Load(path, opt); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, size, cpuTime()-c)
	})
}

// reportCPU adds MB per CPU-second (all threads), which a busy machine does
// not distort as much as wall-clock MB/s.
func reportCPU(b *testing.B, size int64, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

var mslrLine = []byte("2 qid:1 1:3 2:3 3:0 4:0 5:3 6:1 7:1 8:0 9:0 10:1 11:156 12:4 13:0 14:7 15:167 16:6.931275 17:22.076928 18:19.673353 19:22.255383 20:6.926551 21:3 22:3 23:0 24:0 25:6 26:1 27:1 28:0 29:0 30:2 31:1 32:1 33:0 34:0 35:2 36:1 37:1 38:0 39:0 40:2 41:0 42:0 43:0 44:0 45:0 46:0.019231 47:0.75000 48:0 49:0 50:0.035928 51:0.00641 52:0.25000 53:0 54:0 55:0.011976 56:0.00641 57:0.25000 58:0 59:0 60:0.011976 61:0.00641 62:0.25000 63:0 64:0 65:0.011976 66:0 67:0 68:0 69:0 70:0 71:6.931275 72:22.076928 73:0 74:0 75:13.853103 76:1.152128 77:5.99246 78:0 79:0 80:2.297197 81:3.078917 82:8.517343 83:0 84:0 85:6.156595 86:2.310425 87:7.358976 88:0 89:0 90:4.617701 91:0.694726 92:1.084169 93:0 94:0 95:2.78795 96:1 97:1 98:0 99:0 100:1 101:1 102:1 103:0 104:0 105:1 106:12.941469 107:20.59276 108:0 109:0 110:16.766961 111:-18.567793 112:-7.760072 113:-20.838749 114:-25.436074 115:-14.518523 116:-21.710022 117:-21.339609 118:-24.497864 119:-27.690319 120:-20.203779 121:-15.449379 122:-4.474452 123:-23.634899 124:-28.119826 125:-13.581932 126:3 127:62 128:11089534 129:2 130:116 131:64034 132:13 133:3 134:0 135:0 136:0 \r")

// BenchmarkParseLine parses the first line of MSLR-WEB10K's Fold1/train.txt.
func BenchmarkParseLine(b *testing.B) {
	sx := &lineSyntax{maxLabel: 4, wantQID: true}
	idx, val := make([]int32, 0, 136), make([]float32, 0, 136)
	b.SetBytes(int64(len(mslrLine)))
	for b.Loop() {
		_, idx, val, _ = parseLine(mslrLine, sx, idx[:0], val[:0])
	}
}

var floatInputs = []string{"0.007477", "6.931275", "-18.567793", "156", "11089534", "0.75000", "0", "22.076928"}

func BenchmarkParseFloat32(b *testing.B) {
	in := make([][]byte, len(floatInputs))
	for i, s := range floatInputs {
		in[i] = []byte(s)
	}
	b.Run("fast", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			parseFloat32(in[i%len(in)])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			strconv.ParseFloat(floatInputs[i%len(floatInputs)], 32)
		}
	})
}
