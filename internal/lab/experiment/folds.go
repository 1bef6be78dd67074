package experiment

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/piopt/piopt/internal/atomicfile"
)

// FoldOptions are FindFolds's options beyond the folder and the fold
// numbers.
type FoldOptions struct {
	// AssembleTrain gives a fold without a training file one assembled
	// from the other folds' test files (see FindFolds); without it such a
	// fold is an error.
	AssembleTrain bool
	// Out is the experiment's output folder: an assembled training file is
	// written to Out/foldK/train-assembled-KEY.txt.
	Out string
	// Log receives one line per assembled (or reused) training file; nil
	// is silent.
	Log io.Writer
	// Context stops an assembly under way; nil: context.Background().
	Context context.Context
}

// Fold file roles, in the order their files are looked up and reported.
const (
	roleTrain = iota
	roleVali
	roleTest
)

// foldRoles are the names a fold's files may have, each as NAME.txt or
// NAME.txt.gz (the .txt preferred when both exist): MSLR-WEB10K, LETOR 4.0
// and piopt synth write train, vali and test; LETOR 3.0 trainingset,
// validationset and testset; Yahoo! LTR and Istella spell the validation
// set valid. The first name is the one error messages give.
var foldRoles = [...]struct {
	role  string
	names []string
}{
	roleTrain: {"training", []string{"train", "trainingset"}},
	roleVali:  {"validation", []string{"vali", "valid", "validationset"}},
	roleTest:  {"test", []string{"test", "testset"}},
}

// FindFolds returns the folds under dir, in order of their numbers. A fold
// is a folder FoldK (or foldK; both for one K is an error) holding one file
// per role: train.txt or trainingset.txt; vali.txt, valid.txt or
// validationset.txt; test.txt or testset.txt; each may also be .txt.gz (the
// .txt is taken when both exist). Two names of one role in a fold (say
// train.txt and trainingset.txt) are an error naming both. only, when not
// empty, keeps those fold numbers.
//
// A fold without a training file is an error unless opt.AssembleTrain.
// Then fold K's training file is assembled from the test files of the
// other folds under dir (also those only leaves out), concatenated in fold
// order from K+1 on, wrapping round (K+1, ..., then 1, ..., K−1), except a
// test file whose content is that of fold K's own validation or test file.
// That rebuilds LETOR's 5-fold cross-validation: the data is cut into five
// parts S1..S5 and fold K trains on S_K, S_K+1, S_K+2, validates on S_K+3 and
// tests on S_K+4 (mod 5), so every part is one fold's test file, and the
// other folds' test files are the four parts fold K does not test on, one of
// them its validation part. All four would put the validation set, which
// stops training early, inside the training set, so the part equal to the
// validation file is left out; the wrap-round order gives the three others
// in the order of LETOR's own training file (MSLR-WEB10K's and piopt
// synth's are that concatenation, byte for byte). When no other fold's test
// file matches the validation file, all of them are used.
//
// The assembled file is the byte-for-byte concatenation of the
// (gzip-decompressed) test files, a newline added after one that does not
// end with a line end. It is written once, atomically, to
// opt.Out/foldK/train-assembled-KEY.txt, KEY hashing the sources' paths
// and contents as the experiment's other cache keys do, so a resumed run
// reuses it and changed sources give a new file. Test files
// grouped by a LightGBM query file (FILE.query) are refused. opt.Log gets
// one line per assembled or reused file.
func FindFolds(dir string, only []int, opt FoldOptions) ([]Fold, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("--folds: %w", err)
	}
	folders := map[int]string{} // fold number → its folder's name
	var order []int             // fold numbers in the order of ents
	for _, e := range ents {
		k, ok := foldNumber(e)
		if !ok {
			continue
		}
		if prev, dup := folders[k]; dup {
			return nil, fmt.Errorf("--folds: %s and %s are both fold %d; keep one", filepath.Join(dir, prev), filepath.Join(dir, e.Name()), k)
		}
		folders[k] = e.Name()
		order = append(order, k)
	}
	var folds []Fold
	for _, k := range order {
		if len(only) > 0 && !slices.Contains(only, k) {
			continue
		}
		fdir := filepath.Join(dir, folders[k])
		f := Fold{Number: k}
		dst := [...]*string{roleTrain: &f.Train, roleVali: &f.Vali, roleTest: &f.Test}
		for r := range foldRoles {
			if *dst[r], err = roleFile(fdir, k, r); err != nil {
				return nil, err
			}
		}
		for r := range foldRoles {
			if *dst[r] != "" || r == roleTrain && opt.AssembleTrain {
				continue
			}
			msg := missingFile(fdir, r)
			if r == roleTrain && f.Vali != "" && f.Test != "" {
				msg += "; --assemble-train builds it from the other folds' test files"
			}
			return nil, errors.New("--folds: " + msg)
		}
		folds = append(folds, f)
	}
	sort.Slice(folds, func(a, b int) bool { return folds[a].Number < folds[b].Number })
	if len(only) > 0 && len(folds) != len(only) {
		return nil, fmt.Errorf("--folds %s: folds %v not all found", dir, only)
	}
	if len(folds) == 0 {
		return nil, fmt.Errorf("--folds %s: no Fold1..Fold5 folders with train.txt, vali.txt and test.txt", dir)
	}
	for i := range folds {
		if folds[i].Train == "" {
			if folds[i].Train, err = assembleTrain(dir, folders, folds[i], opt); err != nil {
				return nil, err
			}
		}
	}
	return folds, nil
}

// foldNumber returns K of a folder FoldK or foldK (K written without
// leading zeros or sign).
func foldNumber(e os.DirEntry) (int, bool) {
	for _, prefix := range []string{"Fold", "fold"} {
		var k int
		if _, err := fmt.Sscanf(e.Name(), prefix+"%d", &k); err == nil && e.IsDir() && e.Name() == prefix+strconv.Itoa(k) {
			return k, true
		}
	}
	return 0, false
}

// roleFile returns fold k's file of role r in fdir, "" when it has none,
// and an error when it has several.
func roleFile(fdir string, k, r int) (string, error) {
	var found []string
	for _, name := range foldRoles[r].names {
		for _, ext := range []string{".txt", ".txt.gz"} {
			path := filepath.Join(fdir, name+ext)
			if _, err := os.Stat(path); err == nil {
				found = append(found, path)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	list := strings.Join(found[:len(found)-1], ", ") + " and " + found[len(found)-1]
	return "", fmt.Errorf("--folds: %s are each a %s file of fold %d; keep one", list, foldRoles[r].role, k)
}

// missingFile says that fdir has no file of role r, and which names it
// looked for.
func missingFile(fdir string, r int) string {
	names := foldRoles[r].names
	alt := make([]string, len(names)-1)
	for i, n := range names[1:] {
		alt[i] = n + ".txt"
	}
	return fmt.Sprintf("%s has no %s.txt (nor %s; each may be .txt.gz)", fdir, names[0], strings.Join(alt, " or "))
}

// assembleTrain returns the training file of fold f assembled from the
// other folds' test files (FindFolds), writing it unless a previous run
// did.
func assembleTrain(dir string, folders map[int]string, f Fold, opt FoldOptions) (string, error) {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	nums := make([]int, 0, len(folders))
	for k := range folders {
		if k != f.Number {
			nums = append(nums, k)
		}
	}
	// From fold K+1 on, wrapping round: LETOR's rotation.
	sort.Slice(nums, func(a, b int) bool {
		if (nums[a] > f.Number) != (nums[b] > f.Number) {
			return nums[a] > f.Number
		}
		return nums[a] < nums[b]
	})
	var srcs, used, notes []string
	for _, k := range nums {
		fdir := filepath.Join(dir, folders[k])
		test, err := roleFile(fdir, k, roleTest)
		if err != nil {
			return "", err
		}
		if test == "" {
			return "", fmt.Errorf("--folds: cannot assemble fold %d's training file: %s", f.Number, missingFile(fdir, roleTest))
		}
		if q := queryFileOf(test); q != "" {
			return "", fmt.Errorf("--folds: fold %d has no training file, and %s, grouped by %s, cannot be assembled into one", f.Number, test, q)
		}
		same := ""
		for _, own := range []struct{ path, what string }{{f.Vali, "validation"}, {f.Test, "test"}} {
			eq, err := sameText(ctx, test, own.path)
			if err != nil {
				return "", fmt.Errorf("--folds: assembling fold %d's training file: %w", f.Number, err)
			}
			if eq {
				same = own.what
				break
			}
		}
		if same != "" {
			notes = append(notes, fmt.Sprintf("%s's is this fold's %s set, left out", folders[k], same))
			continue
		}
		srcs, used = append(srcs, test), append(used, folders[k])
	}
	if len(srcs) == 0 {
		return "", fmt.Errorf("--folds: fold %d has no training file, and no other fold's test file to assemble one from", f.Number)
	}
	if opt.Out == "" {
		return "", fmt.Errorf("--folds: fold %d has no training file, and no output folder to assemble one in", f.Number)
	}
	parts := []any{"assembled-train"}
	ids := inputIDs{}
	for _, s := range srcs {
		parts = append(parts, ids.id(s))
	}
	path := filepath.Join(opt.Out, fmt.Sprintf("fold%d", f.Number), "train-assembled-"+key(parts...)+".txt")
	what := fmt.Sprintf("%s test files", strings.Join(used, ","))
	if len(notes) > 0 {
		what += " (" + strings.Join(notes, "; ") + ")"
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		logLine(opt.Log, "fold %d: no train file; reused train assembled from %s → %s", f.Number, what, path)
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := concatText(ctx, path, srcs); err != nil {
		return "", fmt.Errorf("--folds: assembling fold %d's training file: %w", f.Number, err)
	}
	logLine(opt.Log, "fold %d: no train file; assembled train from %s → %s", f.Number, what, path)
	return path, nil
}

func logLine(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// queryFileOf returns the LightGBM query file data.Load would group path's
// lines by (FILE.query, or for FILE.gz also FILE without .gz .query), ""
// when there is none.
func queryFileOf(path string) string {
	for _, q := range []string{path + ".query", strings.TrimSuffix(path, ".gz") + ".query"} {
		if st, err := os.Stat(q); err == nil && st.Mode().IsRegular() {
			return q
		}
	}
	return ""
}

// openText opens a LETOR file for reading its text, gzip decompressed
// (detected by its magic bytes, as data.Load does). It also returns
// whether the file is gzip.
func openText(ctx context.Context, path string) (io.Reader, func() error, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, err
	}
	br := bufio.NewReaderSize(ctxReader{ctx, f}, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return zr, func() error { zr.Close(); return f.Close() }, true, nil
	}
	return br, f.Close, false, nil
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// sameText reports whether the files at a and b hold the same text (after
// gzip decompression). Plain files of different sizes differ without
// being read; others are compared up to their first difference.
func sameText(ctx context.Context, a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	if os.SameFile(sa, sb) {
		return true, nil
	}
	ra, closeA, gzA, err := openText(ctx, a)
	if err != nil {
		return false, err
	}
	defer closeA()
	rb, closeB, gzB, err := openText(ctx, b)
	if err != nil {
		return false, err
	}
	defer closeB()
	if !gzA && !gzB && sa.Size() != sb.Size() {
		return false, nil
	}
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, errA := io.ReadFull(ra, bufA)
		nb, errB := io.ReadFull(rb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		endA := errA == io.EOF || errA == io.ErrUnexpectedEOF
		endB := errB == io.EOF || errB == io.ErrUnexpectedEOF
		switch {
		case errA != nil && !endA:
			return false, fmt.Errorf("%s: %w", a, errA)
		case errB != nil && !endB:
			return false, fmt.Errorf("%s: %w", b, errB)
		case endA || endB:
			return endA && endB, nil
		}
	}
}

// concatText writes the texts of srcs one after the other to path,
// atomically, ending each with a newline if it lacks a line end.
func concatText(ctx context.Context, path string, srcs []string) error {
	out, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer out.Abort()
	for _, src := range srcs {
		r, closeSrc, _, err := openText(ctx, src)
		if err != nil {
			return err
		}
		w := &lastByteWriter{w: out}
		_, err = io.Copy(w, r)
		closeSrc()
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if w.n > 0 && w.last != '\n' && w.last != '\r' {
			if _, err := out.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
	}
	return out.Commit()
}

// lastByteWriter passes writes on, remembering how many bytes went through
// and the last one.
type lastByteWriter struct {
	w    io.Writer
	n    int64
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.n += int64(n)
		l.last = p[n-1]
	}
	return n, err
}
