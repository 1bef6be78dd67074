package main

import (
	"context"
	"fmt"
	"os"

	"github.com/piopt/piopt/data"
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

// checkMaxLabel refuses a --max-label outside 1..255. The help promises
// the highest grade accepted, but the reader's 0 stands for its default 4:
// 0 would silently accept grades 1..4, so it is refused rather than
// reinterpreted (a dataset of grade 0 only has nothing to rank by).
func checkMaxLabel(c *cli.Context) error {
	if g := c.Int("max-label"); c.IsSet("max-label") && (g < 1 || g > 255) {
		return fmt.Errorf("--max-label %d: must lie in 1..255 (the highest relevance grade accepted)", g)
	}
	return nil
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
