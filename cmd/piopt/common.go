package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/atomicfile"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/experiment"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/urfave/cli/v2"
)

// dataFlags are the flags of every command that reads a LETOR file.
func dataFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "features", Usage: "feature count `N`", DefaultText: "the largest index seen"},
		&cli.IntFlag{Name: "max-label", Value: 4, Usage: "highest relevance grade `G` accepted (MSLR: 4)"},
		&cli.StringFlag{Name: "query-file", Usage: "LightGBM-style group sizes `FILE` for a data file without qid:", DefaultText: "DATA.query if present"},
		&cli.BoolFlag{Name: "no-cache", Usage: "do not read or write the binary cache of parsed files"},
		&cli.StringFlag{Name: "cache-dir", Usage: "`DIR` of the binary cache", DefaultText: "the user cache folder", EnvVars: []string{"PIOPT_CACHE"}},
		&cli.StringFlag{Name: "doc-ids", Value: "position", Usage: "how logs, targets, policy files and runs name a document: `MODE` position (0-based position in its query's block) or comment (the id in the LETOR line's comment: #docid = ID, # ID, or the first word after #)"},
	}
}

// readOptions builds data.ReadOptions from dataFlags. A bad --doc-ids is
// an error (checkBeforeWork reports it before any work).
func readOptions(c *cli.Context) (data.ReadOptions, error) {
	ids, err := docIDsFlag(c)
	if err != nil {
		return data.ReadOptions{}, err
	}
	return data.ReadOptions{
		Features:    c.Int("features"),
		MaxLabel:    c.Int("max-label"),
		QueryFile:   c.String("query-file"),
		CacheDir:    c.String("cache-dir"),
		NoCache:     c.Bool("no-cache"),
		CacheNotice: cacheNotice(c),
		DocIDs:      ids,
	}, nil
}

// docIDsFlag reads --doc-ids; a command without dataFlags names documents
// by position.
func docIDsFlag(c *cli.Context) (data.DocIDs, error) {
	s := c.String("doc-ids")
	if s == "" && !c.IsSet("doc-ids") {
		return data.DocPosition, nil
	}
	ids, err := data.ParseDocIDs(s)
	if err != nil {
		return 0, fmt.Errorf("--doc-ids %q: want position or comment", s)
	}
	return ids, nil
}

// cacheNotice returns the run's one notifier of unusable cache folders, so
// that a folder is reported once however many files a command reads. (The
// app's setup makes ErrWriter, os.Stderr by default, and Metadata.)
func cacheNotice(c *cli.Context) func(dir string, err error) {
	const key = "cache-notice"
	f, ok := c.App.Metadata[key].(func(string, error))
	if !ok {
		f = data.CacheNotices(c.App.ErrWriter)
		c.App.Metadata[key] = f
	}
	return f
}

// loadData reads the dataset named by the flag.
func loadData(c *cli.Context, flag string) (*data.Dataset, error) {
	path := c.String(flag)
	if path == "" {
		return nil, fmt.Errorf("--%s is required", flag)
	}
	return loadFile(c, path)
}

// loadFile reads a LETOR file with the options of dataFlags, showing
// progress on a terminal.
func loadFile(c *cli.Context, path string) (*data.Dataset, error) {
	opt, err := readOptions(c)
	if err != nil {
		return nil, err
	}
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	bar := progress.New(os.Stderr, "reading "+path, size, "bytes")
	var last int64
	opt.Progress = func(done, total int64) {
		bar.Add(done - last)
		last = done
	}
	defer bar.Done()
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return data.LoadContext(ctx, path, opt)
}

// conventionFlags are the metric conventions shared by every command that
// scores slates.
func conventionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "discount", Value: "log2", Usage: "DCG `DISCOUNT`: log2 = 1/log2(j+1) (paper's text, all libraries) or max2 = 1/log2(max(j,2)) (the authors' scripts)"},
		&cli.IntFlag{Name: "empty-ndcg", Value: 0, Usage: "NDCG `V` of a query without relevant docs: 0 (scikit-learn, paper's scripts) or 1 (LightGBM, XGBoost)"},
		&cli.IntFlag{Name: "maxrel", Usage: "ERR's `MAXREL`", DefaultText: "the data's highest grade"},
	}
}

// conventions reads conventionFlags; maxrel defaults to the highest grade of
// the given datasets (also when given as 0), and a maxrel below it, negative
// or above eval.MaxMaxRel is refused.
func conventions(c *cli.Context, ds ...*data.Dataset) (eval.Conventions, error) {
	d, err := eval.ParseDiscount(c.String("discount"))
	if err != nil {
		return eval.Conventions{}, err
	}
	e := c.Int("empty-ndcg")
	if e != 0 && e != 1 {
		return eval.Conventions{}, fmt.Errorf("--empty-ndcg must be 0 or 1, not %d", e)
	}
	highest := 0
	for _, x := range ds {
		highest = max(highest, x.MaxLabel())
	}
	mr := c.Int("maxrel")
	if mr == 0 {
		mr = highest
	} else if err := eval.CheckMaxRel(mr, highest); err != nil {
		return eval.Conventions{}, fmt.Errorf("--%w", err)
	}
	return eval.Conventions{Discount: d, EmptyOne: e == 1, MaxRel: mr}, nil
}

// foldMaxRel returns the ERR maxrel that piopt experiment settles for the
// dataset the LETOR file at path belongs to, with a line saying so, when
// path is one of the files of fold K (FoldK/train.txt, vali.txt, test.txt
// and the other names and .gz forms experiment.FindFolds takes) of a folder
// of fold folders, as FindFolds finds them: the highest
// grade of every fold's train and test files (experiment.DatasetMaxRel),
// read by scanning their first fields, or own, the highest grade of the
// file itself, when higher (a validation file's). ok is false for any other
// file, which keeps its own highest grade. An unreadable or bad grade in
// another fold's file is an error: experiment would stop on it too.
func foldMaxRel(c *cli.Context, path string, own int) (maxrel int, note string, ok bool, err error) {
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
	folds, err := experiment.FindFolds(root, nil, experiment.FoldOptions{})
	if err != nil {
		return 0, "", false, nil
	}
	self, ok := inFold(folds, k, path)
	if !ok {
		return 0, "", false, nil
	}
	opt, err := readOptions(c)
	if err != nil {
		return 0, "", false, err
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// As given when path names its fold folder, else absolute.
	shown := root
	if clean := filepath.Clean(path); filepath.Base(filepath.Dir(clean)) == name {
		shown = filepath.Dir(filepath.Dir(clean))
	}
	highest, err := experiment.DatasetMaxRel(ctx, folds, func(p string) (int, error) {
		if p == self {
			return own, nil // loaded already
		}
		return experiment.ScanMaxLabel(ctx, p, opt.MaxLabel)
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
func inFold(folds []experiment.Fold, k int, path string) (string, bool) {
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

// setupFlags reads the logging-setup flags (--slots, --logging, --rank-by,
// --candidates, --candidates-by, --metric) that a command defines.
func setupFlags(c *cli.Context) policy.Flags {
	return policy.Flags{
		Slots: c.Int("slots"), Logging: c.String("logging"), RankBy: c.String("rank-by"),
		Candidates: c.Int("candidates"), CandidatesBy: c.String("candidates-by"),
		Metric: c.String("metric"), Policy: c.String("policy"),
		SlotsSet: c.IsSet("slots"), LoggingSet: c.IsSet("logging"), RankBySet: c.IsSet("rank-by"),
		CandidatesSet: c.IsSet("candidates"), CandidatesBySet: c.IsSet("candidates-by"), MetricSet: c.IsSet("metric"),
	}
}

// writeJSON writes v as indented JSON and a newline to path, replacing the
// file only once all of it is written: the form of every --json summary.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// writeAtomic writes the file at path with write, replacing it only once
// write has succeeded.
func writeAtomic(path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
