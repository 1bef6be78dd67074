package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/data/synth"
	"github.com/piopt/piopt/internal/datatest"
)

// writeFolds makes dir/FOLDER/FILE for every "FOLDER/FILE": content in
// files, the file's own path otherwise (so that no two files are equal);
// a name ending in .gz is gzip-compressed.
func writeFolds(t *testing.T, dir string, files []string, content map[string]string) {
	t.Helper()
	for _, f := range files {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		text, ok := content[f]
		if !ok {
			text = "0 qid:1 1:0 # " + f + "\n"
		}
		b := []byte(text)
		if strings.HasSuffix(f, ".gz") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			b = buf.Bytes()
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindFolds(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"Fold1", "Fold2"} {
		os.MkdirAll(filepath.Join(dir, k), 0o755)
		for _, f := range []string{"train.txt", "vali.txt", "test.txt"} {
			os.WriteFile(filepath.Join(dir, k, f), nil, 0o644)
		}
	}
	os.MkdirAll(filepath.Join(dir, "Fold3"), 0o755) // incomplete
	if _, err := FindFolds(dir, nil, FoldOptions{}); err == nil || !strings.Contains(err.Error(), "Fold3") {
		t.Fatalf("incomplete Fold3: err = %v", err)
	}
	folds, err := FindFolds(dir, []int{2}, FoldOptions{})
	if err != nil || len(folds) != 1 || folds[0].Number != 2 || filepath.Base(folds[0].Test) != "test.txt" {
		t.Fatalf("FindFolds(only 2) = %+v, %v", folds, err)
	}
	if _, err := FindFolds(dir, []int{7}, FoldOptions{}); err == nil {
		t.Fatal("missing fold 7 accepted")
	}
}

// Every accepted layout gives the folds' files, in fold order.
func TestFindFoldsLayouts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  []string // per fold: "FOLDER/train FOLDER/vali FOLDER/test" file names
	}{
		{"mslr", []string{"Fold1/train.txt", "Fold1/vali.txt", "Fold1/test.txt", "Fold2/train.txt", "Fold2/vali.txt", "Fold2/test.txt"},
			[]string{"Fold1/train.txt Fold1/vali.txt Fold1/test.txt", "Fold2/train.txt Fold2/vali.txt Fold2/test.txt"}},
		{"gzip", []string{"Fold1/train.txt.gz", "Fold1/vali.txt.gz", "Fold1/test.txt"},
			[]string{"Fold1/train.txt.gz Fold1/vali.txt.gz Fold1/test.txt"}},
		{"txt before gz", []string{"Fold1/train.txt", "Fold1/train.txt.gz", "Fold1/vali.txt", "Fold1/test.txt.gz", "Fold1/test.txt"},
			[]string{"Fold1/train.txt Fold1/vali.txt Fold1/test.txt"}},
		{"letor3", []string{"Fold1/trainingset.txt", "Fold1/validationset.txt", "Fold1/testset.txt"},
			[]string{"Fold1/trainingset.txt Fold1/validationset.txt Fold1/testset.txt"}},
		{"letor3 gzip", []string{"Fold1/trainingset.txt.gz", "Fold1/validationset.txt.gz", "Fold1/testset.txt.gz"},
			[]string{"Fold1/trainingset.txt.gz Fold1/validationset.txt.gz Fold1/testset.txt.gz"}},
		{"valid", []string{"Fold1/train.txt", "Fold1/valid.txt", "Fold1/test.txt"},
			[]string{"Fold1/train.txt Fold1/valid.txt Fold1/test.txt"}},
		{"lower-case folders, ordered by number", []string{
			"fold10/train.txt", "fold10/vali.txt", "fold10/test.txt",
			"fold2/train.txt", "fold2/valid.txt", "fold2/test.txt.gz",
			"Fold3/trainingset.txt", "Fold3/validationset.txt", "Fold3/testset.txt"},
			[]string{"fold2/train.txt fold2/valid.txt fold2/test.txt.gz", "Fold3/trainingset.txt Fold3/validationset.txt Fold3/testset.txt",
				"fold10/train.txt fold10/vali.txt fold10/test.txt"}},
		{"other names ignored", []string{"Fold1/train.txt", "Fold1/vali.txt", "Fold1/test.txt", "Fold1/train.txt.query", "S1.txt",
			"Fold01/train.txt", "FOLD2/train.txt", "folds/x.txt"},
			[]string{"Fold1/train.txt Fold1/vali.txt Fold1/test.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFolds(t, dir, tc.files, nil)
			folds, err := FindFolds(dir, nil, FoldOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range folds {
				rel := func(p string) string { r, _ := filepath.Rel(dir, p); return filepath.ToSlash(r) }
				got = append(got, rel(f.Train)+" "+rel(f.Vali)+" "+rel(f.Test))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The errors of FindFolds, exactly.
func TestFindFoldsErrors(t *testing.T) {
	full := func(folder string) []string {
		return []string{folder + "/train.txt", folder + "/vali.txt", folder + "/test.txt"}
	}
	for _, tc := range []struct {
		name  string
		files []string
		only  []int
		opt   FoldOptions
		want  string // D stands for the folder
	}{
		{"no folds", []string{"S1.txt"}, nil, FoldOptions{},
			"--folds D: no Fold1..Fold5 folders with train.txt, vali.txt and test.txt"},
		{"only not found", full("Fold1"), []int{1, 2}, FoldOptions{},
			"--folds D: folds [1 2] not all found"},
		{"two training files", []string{"Fold1/train.txt", "Fold1/trainingset.txt.gz", "Fold1/vali.txt", "Fold1/test.txt"}, nil, FoldOptions{},
			"--folds: D/Fold1/train.txt and D/Fold1/trainingset.txt.gz are each a training file of fold 1; keep one"},
		{"three validation files", []string{"Fold1/train.txt", "Fold1/vali.txt", "Fold1/valid.txt", "Fold1/validationset.txt", "Fold1/test.txt"}, nil, FoldOptions{},
			"--folds: D/Fold1/vali.txt, D/Fold1/valid.txt and D/Fold1/validationset.txt are each a validation file of fold 1; keep one"},
		{"two test files", []string{"Fold1/train.txt", "Fold1/vali.txt", "Fold1/test.txt", "Fold1/testset.txt"}, nil, FoldOptions{},
			"--folds: D/Fold1/test.txt and D/Fold1/testset.txt are each a test file of fold 1; keep one"},
		{"Fold and fold", append(full("Fold2"), full("fold2")...), nil, FoldOptions{},
			"--folds: D/Fold2 and D/fold2 are both fold 2; keep one"},
		{"missing train names the flag", append(full("Fold1"), "Fold2/vali.txt", "Fold2/test.txt"), nil, FoldOptions{},
			"--folds: D/Fold2 has no train.txt (nor trainingset.txt; each may be .txt.gz); --assemble-train builds it from the other folds' test files"},
		{"missing vali", []string{"Fold1/train.txt", "Fold1/test.txt"}, nil, FoldOptions{},
			"--folds: D/Fold1 has no vali.txt (nor valid.txt or validationset.txt; each may be .txt.gz)"},
		{"empty fold: train first, no flag hint", append(full("Fold1"), "Fold2/x"), nil, FoldOptions{},
			"--folds: D/Fold2 has no train.txt (nor trainingset.txt; each may be .txt.gz)"},
		{"empty fold with the flag: vali", append(full("Fold1"), "Fold2/x"), nil, FoldOptions{AssembleTrain: true},
			"--folds: D/Fold2 has no vali.txt (nor valid.txt or validationset.txt; each may be .txt.gz)"},
		{"assembling without a test file", append(full("Fold1"), "Fold2/vali.txt", "Fold2/test.txt", "Fold3/train.txt"), []int{2}, FoldOptions{AssembleTrain: true, Out: "out"},
			"--folds: cannot assemble fold 2's training file: D/Fold3 has no test.txt (nor testset.txt; each may be .txt.gz)"},
		{"assembling from nothing", []string{"Fold1/vali.txt", "Fold1/test.txt"}, nil, FoldOptions{AssembleTrain: true, Out: "out"},
			"--folds: fold 1 has no training file, and no other fold's test file to assemble one from"},
		{"assembling without out", append(full("Fold1"), "Fold2/vali.txt", "Fold2/test.txt"), nil, FoldOptions{AssembleTrain: true},
			"--folds: fold 2 has no training file, and no output folder to assemble one in"},
		{"assembling query-file groups", append(full("Fold1"), "Fold1/test.txt.query", "Fold2/vali.txt", "Fold2/test.txt"), nil, FoldOptions{AssembleTrain: true, Out: "out"},
			"--folds: fold 2 has no training file, and D/Fold1/test.txt, grouped by D/Fold1/test.txt.query, cannot be assembled into one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFolds(t, dir, tc.files, nil)
			if tc.opt.Out != "" {
				tc.opt.Out = filepath.Join(dir, tc.opt.Out)
			}
			_, err := FindFolds(dir, tc.only, tc.opt)
			want := strings.ReplaceAll(tc.want, "D", dir)
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant  %s", err, want)
			}
			if _, serr := os.Stat(filepath.Join(dir, "out")); serr == nil {
				t.Error("an output folder was made")
			}
		})
	}
	if _, err := FindFolds(filepath.Join(t.TempDir(), "none"), nil, FoldOptions{}); err == nil || !strings.HasPrefix(err.Error(), "--folds: open ") {
		t.Errorf("missing folder: %v", err)
	}
}

// A fold without a training file gets the other folds' test files,
// concatenated in fold order after its own, wrapping round (decompressed,
// a missing last newline added),
// written once under Out and reused by the next call.
func TestFindFoldsAssembleTrain(t *testing.T) {
	dir := t.TempDir()
	content := map[string]string{
		"Fold1/test.txt":    "1 qid:10 1:1\n0 qid:10 1:2\n",
		"Fold2/vali.txt":    "2 qid:30 1:3\n",
		"Fold2/test.txt":    "0 qid:20 1:4\n",
		"Fold3/test.txt.gz": "2 qid:40 1:5\n1 qid:40 1:6", // no final newline
		"Fold4/test.txt":    "0 qid:50 1:7\n",
	}
	writeFolds(t, dir, []string{
		"Fold1/train.txt", "Fold1/vali.txt", "Fold1/test.txt",
		"Fold2/vali.txt", "Fold2/test.txt",
		"Fold3/trainingset.txt", "Fold3/validationset.txt", "Fold3/test.txt.gz",
		"Fold4/train.txt", "Fold4/valid.txt", "Fold4/test.txt",
	}, content)
	out := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	opt := FoldOptions{AssembleTrain: true, Out: out, Log: &log}
	folds, err := FindFolds(dir, []int{2, 3}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(folds) != 2 || folds[0].Number != 2 || folds[1].Train != filepath.Join(dir, "Fold3", "trainingset.txt") {
		t.Fatalf("folds %+v", folds)
	}
	path := folds[0].Train
	if filepath.Dir(path) != filepath.Join(out, "fold2") || !strings.HasPrefix(filepath.Base(path), "train-assembled-") || !strings.HasSuffix(path, ".txt") {
		t.Errorf("assembled train at %s", path)
	}
	want := content["Fold3/test.txt.gz"] + "\n" + content["Fold4/test.txt"] + content["Fold1/test.txt"]
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Fatalf("assembled train %q, %v; want %q", b, err, want)
	}
	wantLog := "fold 2: no train file; assembled train from Fold3,Fold4,Fold1 test files → " + path + "\n"
	if log.String() != wantLog {
		t.Errorf("log %q, want %q", log.String(), wantLog)
	}

	// A second call reuses the file.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	log.Reset()
	again, err := FindFolds(dir, []int{2}, opt)
	if err != nil || len(again) != 1 || again[0].Train != path {
		t.Fatalf("second call: %+v, %v", again, err)
	}
	if st, err := os.Stat(path); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("assembled file rewritten")
	}
	if want := "fold 2: no train file; reused train assembled from Fold3,Fold4,Fold1 test files → " + path + "\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if ents, _ := os.ReadDir(filepath.Join(out, "fold2")); len(ents) != 1 {
		t.Errorf("fold2 output holds %d files", len(ents))
	}

	// A changed source gives a new file.
	writeFolds(t, dir, []string{"Fold4/test.txt"}, map[string]string{"Fold4/test.txt": "1 qid:50 1:8\n0 qid:51 1:9\n"})
	changed, err := FindFolds(dir, []int{2}, opt)
	if err != nil || changed[0].Train == path {
		t.Fatalf("after a source changed: %+v, %v", changed, err)
	}
	if b, _ := os.ReadFile(changed[0].Train); !strings.Contains(string(b), "\n1 qid:50 1:8\n0 qid:51 1:9\n1 qid:10") {
		t.Errorf("new assembled train %q", b)
	}
}

// In LETOR's 5-fold layout (fold k tests on one part, validates on the
// part fold k−1 tests on), the assembled training file is the three parts
// the fold neither tests nor validates on, in LETOR's order: the
// validation part is left out.
func TestFindFoldsAssembleLETOR(t *testing.T) {
	dir := t.TempDir()
	part := func(s int) string { return strings.Repeat("0 qid:"+string(rune('0'+s))+" 1:1\n", s) }
	var files []string
	content := map[string]string{}
	for k := 1; k <= 5; k++ {
		test, vali := (k+3)%5+1, (k+2)%5+1 // MSLR: Fold1 tests on S5, validates on S4
		for name, s := range map[string]int{"vali.txt": vali, "test.txt": test} {
			f := "Fold" + string(rune('0'+k)) + "/" + name
			files = append(files, f)
			content[f] = part(s)
		}
	}
	writeFolds(t, dir, files, content)
	var log bytes.Buffer
	out := t.TempDir()
	folds, err := FindFolds(dir, []int{3}, FoldOptions{AssembleTrain: true, Out: out, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	// Fold3 validates on S1 (Fold2's test) and tests on S2; it trains on
	// Fold4's, Fold5's and Fold1's tests: S3, S4, S5.
	want := part(3) + part(4) + part(5)
	if b, err := os.ReadFile(folds[0].Train); err != nil || string(b) != want {
		t.Fatalf("Fold3 train %q, %v; want %q", b, err, want)
	}
	wantLog := "fold 3: no train file; assembled train from Fold4,Fold5,Fold1 test files (Fold2's is this fold's validation set, left out) → " + folds[0].Train + "\n"
	if log.String() != wantLog {
		t.Errorf("log %q\nwant %q", log.String(), wantLog)
	}
}

// piopt synth writes MSLR's rotation with FoldK's train the concatenation
// of its three parts in order: without its train files, every fold's
// assembled training file is byte for byte the one synth wrote.
func TestFindFoldsAssembleSynth(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 20, Seed: 2, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	orig := map[int][]byte{}
	for k := 1; k <= 5; k++ {
		p := filepath.Join(dir, "Fold"+string(rune('0'+k)), "train.txt")
		orig[k] = mustReadFile(t, p)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	folds, err := FindFolds(dir, nil, FoldOptions{AssembleTrain: true, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folds {
		if !bytes.Equal(mustReadFile(t, f.Train), orig[f.Number]) {
			t.Errorf("fold %d: assembled train differs from synth's", f.Number)
		}
	}
}

// On the real LETOR 4.0 MQ2008 folds without their train files (the
// validation and test files linked), every fold's assembled training file
// is byte for byte the distributed train.txt.
func TestFindFoldsAssembleMQ2008(t *testing.T) {
	src := datatest.SharedFile(t, "MQ2008")
	dir := t.TempDir()
	for k := 1; k <= 5; k++ {
		fold := "Fold" + string(rune('0'+k))
		if err := os.Mkdir(filepath.Join(dir, fold), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"vali.txt", "test.txt"} {
			if err := os.Symlink(filepath.Join(src, fold, f), filepath.Join(dir, fold, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	folds, err := FindFolds(dir, nil, FoldOptions{AssembleTrain: true, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range folds {
		want := mustReadFile(t, filepath.Join(src, "Fold"+string(rune('0'+f.Number)), "train.txt"))
		if !bytes.Equal(mustReadFile(t, f.Train), want) {
			t.Errorf("fold %d: assembled train differs from MQ2008's", f.Number)
		}
	}
}

// A cancelled assembly leaves no file behind.
func TestFindFoldsAssembleCancelled(t *testing.T) {
	dir := t.TempDir()
	writeFolds(t, dir, []string{"Fold1/train.txt", "Fold1/vali.txt", "Fold1/test.txt", "Fold2/vali.txt", "Fold2/test.txt"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	_, err := FindFolds(dir, nil, FoldOptions{AssembleTrain: true, Out: out, Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(out, "fold2")); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
