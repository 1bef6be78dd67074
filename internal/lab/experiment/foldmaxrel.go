package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FoldMaxRel returns the ERR maxrel that piopt experiment settles for the
// dataset the LETOR file at path belongs to, with a line saying so, when
// path is one of the files of fold K (FoldK/train.txt, vali.txt, test.txt
// and the other names and .gz forms FindFolds takes) of a folder of fold
// folders: the highest grade of every fold's train and test files
// (DatasetMaxRel; grades above maxLabel are errors), read by scanning their
// first fields, or own, the highest grade of the
// file itself, when higher (a validation file's). ok is false for any other
// file, which keeps its own highest grade. An unreadable or bad grade in
// another fold's file is an error: experiment would stop on it too.
func FoldMaxRel(ctx context.Context, path string, own, maxLabel int) (maxrel int, note string, ok bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, "", false, nil
	}
	foldDir := filepath.Dir(abs)
	name := filepath.Base(foldDir)
	k, isFold := 0, false
	for _, prefix := range []string{"Fold", "fold"} {
		if n, err := strconv.Atoi(strings.TrimPrefix(name, prefix)); err == nil && name == prefix+strconv.Itoa(n) {
			k, isFold = n, true
		}
	}
	if !isFold {
		return 0, "", false, nil
	}
	root := filepath.Dir(foldDir)
	folds, err := FindFolds(root, nil, FoldOptions{})
	if err != nil {
		return 0, "", false, nil
	}
	self, ok := inFold(folds, k, path)
	if !ok {
		return 0, "", false, nil
	}
	// As given when path names its fold folder, else absolute.
	shown := root
	if clean := filepath.Clean(path); filepath.Base(filepath.Dir(clean)) == name {
		shown = filepath.Dir(filepath.Dir(clean))
	}
	highest, err := DatasetMaxRel(ctx, folds, func(p string) (int, error) {
		if p == self {
			return own, nil // loaded already
		}
		return ScanMaxLabel(ctx, p, maxLabel)
	})
	if err != nil {
		return 0, "", false, fmt.Errorf("maxrel of the folds under %s, as experiment takes it (--maxrel to give one): %w", shown, err)
	}
	folders := fmt.Sprintf("%d folds", len(folds))
	if len(folds) == 1 {
		folders = "1 fold"
	}
	if own > highest {
		return own, fmt.Sprintf("maxrel %d: highest grade of %s, above the %d of the train and test files of the %s under %s that experiment takes (--maxrel to override)",
			own, path, highest, folders, shown), true, nil
	}
	return highest, fmt.Sprintf("maxrel %d: highest grade of the train and test files of the %s under %s, as experiment takes it (--maxrel to override)",
		highest, folders, shown), true, nil
}

// inFold returns the one of fold k's files that the file at path is, as
// folds name it.
func inFold(folds []Fold, k int, path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	for _, f := range folds {
		if f.Number != k {
			continue
		}
		for _, p := range []string{f.Train, f.Vali, f.Test} {
			if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
				return p, true
			}
		}
	}
	return "", false
}
