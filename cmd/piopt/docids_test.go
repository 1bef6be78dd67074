package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad --doc-ids is refused at start, naming the flag, by every command
// that reads data: the data file does not exist, so an error about it would
// mean the work had started.
func TestDocIDsFlagRefusedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none.txt")
	folds := t.TempDir()
	for _, args := range [][]string{
		{"stats", none},
		{"simulate", "--data", none, "--slots", "3", "--logging", "uniform", "--samples", "5", "--out", none + ".log"},
		{"impute", "--data", none, "--logs", none, "--out", none + ".targets"},
		{"train", "--data", none, "--targets", none, "--out", none + ".model"},
		{"predict", "--data", none, "--model", none, "--out", none + ".scores"},
		{"rank", "--data", none, "--model", none},
		{"evaluate", "--data", none, "--logs", none, "--target", "feature:1"},
		{"evaluate-sweep", "--data", none, "--target", "feature:1"},
		{"experiment", "--folds", folds, "--out", filepath.Join(dir, "e")},
	} {
		a := append([]string{args[0], "--doc-ids", "docid"}, args[1:]...) // before stats's FILE
		_, err := runCapture(t, a...)
		if err == nil || !strings.Contains(err.Error(), `--doc-ids "docid": want position or comment`) {
			t.Errorf("%s: error %v", args[0], err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files made: %v", entries)
	}
}

// docIDsLETOR writes a file like writeLETOR's whose lines carry their ids in
// the comment forms of real files, and returns its path and, per query, its
// ids in file order.
func docIDsLETOR(t *testing.T, dir string) (string, [][]string) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	var ids [][]string
	for q := range 15 {
		var qids []string
		for d := range 1 + rng.IntN(9) {
			id := fmt.Sprintf("GX%03d-%02d-%d", 40-q, d, rng.IntN(1000))
			fmt.Fprintf(&b, "%d qid:%d", rng.IntN(3), 700+q)
			for f := 1; f <= 4; f++ {
				fmt.Fprintf(&b, " %d:%d", f, rng.IntN(10))
			}
			if d%2 == 0 {
				fmt.Fprintf(&b, " #docid = %s inc = 1 prob = 0.02\n", id)
			} else {
				fmt.Fprintf(&b, " # %s\n", id)
			}
			qids = append(qids, id)
		}
		ids = append(ids, qids)
	}
	return writeText(t, dir, "ids.txt", b.String()), ids
}

// namePositions rewrites a file of piopt's whose field col (0-based, of
// sep-separated fields) holds documents (comma-separated when slates) of
// the qid in field qcol, from positions to ids, skipping '#' lines.
func namePositions(t *testing.T, text string, ids map[string][]string, sep string, qcol, col int) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			out = append(out, l)
			continue
		}
		f := strings.Split(l, sep)
		var names []string
		for _, d := range strings.Split(f[col], ",") {
			var p int
			if _, err := fmt.Sscan(d, &p); err != nil || p >= len(ids[f[qcol]]) {
				t.Fatalf("line %q: doc %q", l, d)
			}
			names = append(names, ids[f[qcol]][p])
		}
		f[col] = strings.Join(names, ",")
		out = append(out, strings.Join(f, sep))
	}
	return strings.Join(out, "\n")
}

// Every file a command writes names documents by their comment ids with
// --doc-ids comment, and is otherwise the file written by position; the
// files read back with --doc-ids comment, and not by position.
func TestDocIDsCommands(t *testing.T) {
	dir := t.TempDir()
	d, idList := docIDsLETOR(t, dir)
	ids := map[string][]string{}
	for q, l := range idList {
		ids[fmt.Sprint(700+q)] = l
	}
	common := []string{"--data", d, "--max-label", "2", "--cache-dir", filepath.Join(dir, "cache")}
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, mode := range []string{"position", "comment"} {
		with := append([]string{"--doc-ids", mode}, common...)
		steps := [][]string{
			{"simulate", "--slots", "3", "--logging", "uniform", "--samples", "400", "--seed", "4", "--out", out(mode + ".log")},
			{"impute", "--logs", out(mode + ".log"), "--out", out(mode + ".targets")},
			{"predict", "--model", fixtureModel, "--out", out(mode + ".scores")},
			{"rank", "--model", fixtureModel, "--out", out(mode + ".run")},
		}
		for _, s := range steps {
			if err := runPiopt(t, append(s, with...)...); err != nil {
				t.Fatalf("%s --doc-ids %s: %v", s[0], mode, err)
			}
		}
	}
	read := func(name string) string { return string(mustRead(t, out(name))) }
	// Logs: the header says doc-ids=comment; the slates name the same
	// documents.
	posLog, idLog := read("position.log"), read("comment.log")
	head, rest, _ := strings.Cut(idLog, "\n")
	posHead, posRest, _ := strings.Cut(posLog, "\n")
	if head != posHead+" doc-ids=comment" {
		t.Errorf("log headers\n%s\n%s", posHead, head)
	}
	if rest != namePositions(t, posRest, ids, "\t", 0, 1) {
		t.Errorf("logs differ beyond the names:\n%.300s\n%.300s", posRest, rest)
	}
	// Targets, scores and runs likewise.
	tgt := read("comment.targets")
	head, rest, _ = strings.Cut(tgt, "\n")
	posHead, posRest, _ = strings.Cut(read("position.targets"), "\n")
	if !strings.Contains(head, " doc-ids=comment") || strings.Contains(posHead, "doc-ids") {
		t.Errorf("targets headers\n%s\n%s", posHead, head)
	}
	if rest != namePositions(t, posRest, ids, "\t", 0, 1) {
		t.Errorf("targets differ beyond the names:\n%.300s\n%.300s", posRest, rest)
	}
	if got, want := read("comment.scores"), namePositions(t, read("position.scores"), ids, "\t", 0, 1); got != want {
		t.Errorf("scores differ beyond the names:\n%.300s\n%.300s", want, got)
	}
	if got, want := read("comment.run"), namePositions(t, read("position.run"), ids, " ", 0, 2); got != want {
		t.Errorf("runs differ beyond the names:\n%.300s\n%.300s", want, got)
	}
	if !strings.Contains(read("comment.run"), " Q0 GX") {
		t.Errorf("run without ids:\n%.200s", read("comment.run"))
	}
	// A log or targets file with ids needs --doc-ids comment.
	for _, s := range [][]string{
		{"impute", "--logs", out("comment.log"), "--out", out("x.targets")},
		{"train", "--targets", out("comment.targets"), "--trees", "2", "--out", out("x.model")},
	} {
		err := runPiopt(t, append(s, common...)...)
		if err == nil || !strings.Contains(err.Error(), "doc-ids=comment: the file names documents by their comment ids") {
			t.Errorf("%s of a file with ids, by position: %v", s[0], err)
		}
	}
	// A file without ids on a line is refused in comment mode only.
	bare := writeText(t, dir, "bare.txt", "1 qid:1 1:1 #docid = A\n0 qid:1 1:2\n")
	if _, err := runCapture(t, "stats", "--no-cache", bare); err != nil {
		t.Error(err)
	}
	if _, err := runCapture(t, "stats", "--no-cache", "--doc-ids", "comment", bare); err == nil || !strings.Contains(err.Error(), `bare.txt:2: field 4 (""): no comment`) {
		t.Errorf("stats --doc-ids comment of a line without id: %v", err)
	}
}
