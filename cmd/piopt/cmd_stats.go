package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "summarise LETOR files: queries, documents, features, documents per query, grades",
		ArgsUsage: "FILE...",
		Description: `Reads each LETOR/SVMlight file (plain or .gz; LightGBM files without qid: use
FILE.query) and prints its number of queries, documents and features, the
documents per query (min, mean, max), the number of documents of each grade,
and the queries without any relevant document (all grade 0), whose NDCG
depends on the --empty-ndcg convention.

With --json, one JSON object per file and line:
  {"file": ..., "queries": Q, "docs": D, "features": F,
   "docs_per_query": {"min": .., "mean": .., "max": ..},
   "labels": {"0": n0, ..., "4": n4}, "queries_without_relevant": N}
labels lists every grade from 0 to the highest present (--all-grades: to --max-label).

   piopt stats folds/Fold1/train.txt folds/Fold1/vali.txt folds/Fold1/test.txt
   piopt stats --json --max-label 4 folds/S1.txt folds/S2.txt`,
		Flags: append(dataFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per file"},
			&cli.BoolFlag{Name: "all-grades", Usage: "list every grade from 0 to --max-label, not only up to the file's highest, so that files compare"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return errors.New("stats: give one or more LETOR files")
			}
			for _, path := range c.Args().Slice() {
				ds, err := loadFile(c, path)
				if err != nil {
					return err
				}
				s := ds.Summary()
				// Summary lists the grades up to the file's highest;
				// --all-grades pads them to --max-label.
				for c.Bool("all-grades") && len(s.Labels) <= c.Int("max-label") {
					s.Labels = append(s.Labels, 0)
				}
				if c.Bool("json") {
					err = writeStatsJSON(c.App.Writer, path, s)
				} else {
					err = writeStatsText(c.App.Writer, path, s)
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// gradeCounts marshals as a JSON object with the grades as string keys in
// numeric order ("0", "1", ..., "10").
type gradeCounts []int

func (g gradeCounts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range g {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", strconv.Itoa(i), n)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type statsJSON struct {
	File         string `json:"file"`
	Queries      int    `json:"queries"`
	Docs         int    `json:"docs"`
	Features     int    `json:"features"`
	DocsPerQuery struct {
		Min  int     `json:"min"`
		Mean float64 `json:"mean"`
		Max  int     `json:"max"`
	} `json:"docs_per_query"`
	Labels      gradeCounts `json:"labels"`
	NoRelevant  int         `json:"queries_without_relevant"`
	LabelShares []float64   `json:"label_fractions"`
}

func writeStatsJSON(w io.Writer, path string, s data.Summary) error {
	j := statsJSON{File: path, Queries: s.Queries, Docs: s.Docs, Features: s.Features,
		Labels: s.Labels, NoRelevant: s.NoRelevant}
	j.DocsPerQuery.Min, j.DocsPerQuery.Mean, j.DocsPerQuery.Max = s.MinDocs, s.MeanDocs, s.MaxDocs
	for _, n := range s.Labels {
		j.LabelShares = append(j.LabelShares, float64(n)/float64(s.Docs))
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func writeStatsText(w io.Writer, path string, s data.Summary) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", path)
	fmt.Fprintf(&b, "  queries                   %d\n", s.Queries)
	fmt.Fprintf(&b, "  documents                 %d\n", s.Docs)
	fmt.Fprintf(&b, "  features                  %d\n", s.Features)
	fmt.Fprintf(&b, "  documents per query       min %d, mean %.1f, max %d\n", s.MinDocs, s.MeanDocs, s.MaxDocs)
	fmt.Fprintf(&b, "  grades                   ")
	for g, n := range s.Labels {
		fmt.Fprintf(&b, " %d: %d (%.1f%%)", g, n, 100*float64(n)/float64(s.Docs))
	}
	fmt.Fprintf(&b, "\n  queries without relevant  %d (%.1f%%)\n", s.NoRelevant, 100*float64(s.NoRelevant)/float64(s.Queries))
	_, err := w.Write(b.Bytes())
	return err
}
