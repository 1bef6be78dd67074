package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A cache folder that is not a folder is reported once per run, however
// many files the command reads, and the command still succeeds.
func TestCacheNoticeOncePerRun(t *testing.T) {
	dir := t.TempDir()
	a := writeLETOR(t, dir, letorSpec{file: "a.txt", seed: 1, queries: 3, minDocs: 2, maxDocs: 4})
	b := writeLETOR(t, dir, letorSpec{file: "b.txt", seed: 2, queries: 2, minDocs: 2, maxDocs: 4})
	notDir := writeText(t, dir, "cache", "x")
	app := newApp()
	var out, errs bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errs
	if err := app.RunContext(context.Background(), []string{"piopt", "stats", "--cache-dir", notDir, a, b}); err != nil {
		t.Fatal(err)
	}
	want := "piopt: cache " + notDir + " not usable (not a folder): reading without a cache\n"
	if errs.String() != want {
		t.Errorf("stderr\n%q\nwant\n%q", errs.String(), want)
	}
	if !strings.Contains(out.String(), "a.txt") || !strings.Contains(out.String(), "b.txt") {
		t.Errorf("stats of both files missing:\n%s", out.String())
	}
}
