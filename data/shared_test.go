package data

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/internal/datatest"
)

// The real LETOR files in ../shared/data (see each SOURCE.md). Every data
// file there is parsed, compared value by value with naiveRead, and the
// totals are checked against SOURCE.md.

// isDataFile tells the LETOR files apart from documentation and group files.
func isDataFile(path string) bool {
	base := filepath.Base(path)
	return !strings.HasSuffix(base, ".md") && !strings.HasSuffix(base, ".query") && base != "readme.txt"
}

// naiveGroups reads a LightGBM query file the obvious way.
func naiveGroups(t *testing.T, path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var gs []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, n)
	}
	return gs
}

func TestSharedDataParses(t *testing.T) {
	dir := datatest.SharedDir(t)
	cache := t.TempDir()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isDataFile(path) {
			return err
		}
		files++
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		want := naiveRead(t, string(text), naiveGroups(t, path+".query"))
		for _, opt := range []ReadOptions{noCache(), {CacheDir: cache}, {CacheDir: cache}} {
			ds, err := Load(path, opt)
			if err != nil {
				t.Errorf("%v", err)
				return nil
			}
			if diff := sameDataset(ds, want); diff != "" {
				t.Errorf("%s (cache %v): %s", path, !opt.NoCache, diff)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 40 {
		t.Errorf("only %d data files under %s", files, dir)
	}
}

// totals sums the datasets of files: queries, docs, label histogram,
// queries without a relevant document, min and max docs per query.
func totals(t *testing.T, files ...string) (q, d int, hist [5]int, noRel, minDocs, maxDocs int) {
	t.Helper()
	minDocs = 1 << 30
	for _, f := range files {
		ds, err := Load(f, noCache())
		if err != nil {
			t.Fatal(err)
		}
		s := ds.Summary()
		q += s.Queries
		d += s.Docs
		for g, n := range s.Labels {
			hist[g] += n
		}
		noRel += s.NoRelevant
		minDocs = min(minDocs, s.MinDocs)
		maxDocs = max(maxDocs, s.MaxDocs)
	}
	return
}

func TestSharedDataTotals(t *testing.T) {
	dir := datatest.SharedDir(t)
	in := func(sub string, names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, sub, n))
		}
		return out
	}
	five := func(pattern string) []string {
		var out []string
		for k := 1; k <= 5; k++ {
			out = append(out, fmt.Sprintf(pattern, k))
		}
		return out
	}
	tests := []struct {
		name                  string
		files                 []string
		queries, docs         int
		hist                  [5]int
		noRel                 int // -1: not given in SOURCE.md
		minDocs, maxDocs      int // 0: not given
		queriesPerFile, docs1 []int
	}{
		{name: "MQ2008 S1..S5", files: in("MQ2008", five("S%d.txt")...), queries: 784, docs: 15211,
			hist: [5]int{12279, 2001, 931}, noRel: 220, minDocs: 5, maxDocs: 121,
			queriesPerFile: []int{157, 157, 157, 157, 156}, docs1: []int{2933, 3635, 3062, 2707, 2874}},
		{name: "MQ2008 Fold*/test", files: in("MQ2008", five("Fold%d/test.txt")...), queries: 784, docs: 15211,
			hist: [5]int{12279, 2001, 931}, noRel: 220, minDocs: 5, maxDocs: 121,
			queriesPerFile: []int{156, 157, 157, 157, 157}, docs1: []int{2874, 2933, 3635, 3062, 2707}},
		{name: "MQ2008 Fold1/train", files: in("MQ2008", "Fold1/train.txt"), queries: 471, docs: 9630,
			hist: [5]int{7820, 1223, 587}, noRel: -1},
		{name: "MQ2008 Fold4/train", files: in("MQ2008", "Fold4/train.txt"), queries: 470, docs: 8514,
			hist: [5]int{6775, 1205, 534}, noRel: -1},
		{name: "OHSUMED Fold*/test", files: in("OHSUMED-LETOR3", five("QueryLevelNorm/Fold%d/test.txt")...), queries: 106, docs: 16140,
			hist: [5]int{11303, 2585, 2252}, noRel: 1, minDocs: 35, maxDocs: 320,
			queriesPerFile: []int{22, 21, 21, 21, 21}, docs1: []int{3383, 2570, 3076, 3573, 3538}},
		{name: "Webis Fold*/test", files: in("Webis-ClueWeb09-LTR", five("ClueWeb09/Fold%d/test.txt")...), queries: 61, docs: 26646,
			hist: [5]int{21808, 3274, 1242, 172, 150}, noRel: 1, minDocs: 230, maxDocs: 728,
			queriesPerFile: []int{12, 12, 12, 12, 13}, docs1: []int{5309, 5584, 4686, 5004, 6063}},
		{name: "LightGBM rank.train (.query)", files: in("LightGBM-lambdarank", "examples/lambdarank/rank.train"), queries: 201, docs: 3005,
			hist: [5]int{645, 1211, 858, 222, 69}, noRel: 3, minDocs: 1, maxDocs: 27},
		{name: "LightGBM rank.test (.query)", files: in("LightGBM-lambdarank", "examples/lambdarank/rank.test"), queries: 50, docs: 768,
			hist: [5]int{206, 256, 252, 44, 10}, noRel: -1, minDocs: 6, maxDocs: 24},
		{name: "LightGBM derived qid", files: in("LightGBM-lambdarank", "derived/rank.train.qid.txt", "derived/rank.test.qid.txt"), queries: 251, docs: 3773,
			hist: [5]int{851, 1467, 1110, 266, 79}, noRel: -1},
		{name: "MSLR sample", files: in("MSLR-WEB-sample10", "test_data/mslr_sample.txt"), queries: 1, docs: 10,
			hist: [5]int{2, 4, 4}, noRel: 0, minDocs: 10, maxDocs: 10},
	}
	for _, tt := range tests {
		q, d, hist, noRel, minD, maxD := totals(t, tt.files...)
		if q != tt.queries || d != tt.docs || hist != tt.hist {
			t.Errorf("%s: %d queries, %d docs, labels %v; SOURCE.md: %d, %d, %v", tt.name, q, d, hist, tt.queries, tt.docs, tt.hist)
		}
		if tt.noRel >= 0 && noRel != tt.noRel {
			t.Errorf("%s: %d queries without relevant documents, SOURCE.md: %d", tt.name, noRel, tt.noRel)
		}
		if tt.minDocs > 0 && (minD != tt.minDocs || maxD != tt.maxDocs) {
			t.Errorf("%s: %d..%d docs per query, SOURCE.md: %d..%d", tt.name, minD, maxD, tt.minDocs, tt.maxDocs)
		}
		for i, f := range tt.files {
			if tt.queriesPerFile == nil {
				break
			}
			q, d, _, _, _, _ := totals(t, f)
			if q != tt.queriesPerFile[i] || d != tt.docs1[i] {
				t.Errorf("%s: %d queries, %d docs; SOURCE.md %d, %d", f, q, d, tt.queriesPerFile[i], tt.docs1[i])
			}
		}
	}
}

func TestSharedDataLayouts(t *testing.T) {
	dir := datatest.SharedDir(t)
	load := func(parts ...string) *Dataset {
		ds, err := Load(filepath.Join(append([]string{dir}, parts...)...), noCache())
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	// LightGBM's group files give the same dataset as the derived qid files.
	for _, name := range []string{"train", "test"} {
		a := load("LightGBM-lambdarank", "examples", "lambdarank", "rank."+name)
		b := load("LightGBM-lambdarank", "derived", "rank."+name+".qid.txt")
		if d := sameDataset(a, b); d != "" {
			t.Errorf("rank.%s with .query vs derived qid file: %s", name, d)
		}
	}
	// MQ2008's Fold1/train is S1+S2+S3, in order.
	train := load("MQ2008", "Fold1", "train.txt")
	var qids []string
	for _, s := range []string{"S1.txt", "S2.txt", "S3.txt"} {
		qids = append(qids, load("MQ2008", s).QIDs...)
	}
	if fmt.Sprint(train.QIDs) != fmt.Sprint(qids) {
		t.Error("MQ2008 Fold1/train.txt is not S1+S2+S3")
	}
	// The MSLR sample: 136 dense features, first line as SOURCE.md quotes it.
	ms := load("MSLR-WEB-sample10", "test_data", "mslr_sample.txt")
	r := ms.Row(0)
	if ms.NumFeatures != 136 || ms.QIDs[0] != "1" || ms.Labels[0] != 2 || r[0] != 3 || r[1] != 3 || r[2] != 0 ||
		r[15] != float32(6.931275) || r[110] != float32(-18.567793) || r[127] != 11089534 || r[135] != 0 {
		t.Errorf("MSLR sample first line read as %v", r)
	}
}
