package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A log without its header line is read with what the flags say: impute's
// targets and evaluate's estimates equal those of the same log with its
// header, and a key no flag gives is named with the flag that would.
func TestHeaderlessLog(t *testing.T) {
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 5, queries: 12, minDocs: 4, maxDocs: 9, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	setup := []string{"--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2", "--candidates", "5"}
	if err := runPiopt(t, append(append([]string{"simulate"}, common...), append(setup, "--samples", "3000", "--out", at("log.txt"))...)...); err != nil {
		t.Fatal(err)
	}
	log := mustRead(t, at("log.txt"))
	_, body, _ := bytes.Cut(log, []byte("\n"))
	writeText(t, dir, "nohdr.txt", string(body))

	impute := func(logs, out string, flags ...string) error {
		return runPiopt(t, append(append([]string{"impute"}, common...), append(flags, "--logs", at(logs), "--out", at(out))...)...)
	}
	if err := impute("log.txt", "t1.txt"); err != nil {
		t.Fatal(err)
	}
	if err := impute("nohdr.txt", "t2.txt", setup...); err != nil {
		t.Fatal(err)
	}
	_, t1, _ := bytes.Cut(mustRead(t, at("t1.txt")), []byte("\n"))
	_, t2, _ := bytes.Cut(mustRead(t, at("t2.txt")), []byte("\n"))
	if len(t1) == 0 || !bytes.Equal(t1, t2) {
		t.Error("targets of the headerless log differ from the headered log's")
	}

	eval := func(logs, js string, flags ...string) map[string]any {
		args := append(append([]string{"evaluate"}, common...), append(flags, "--logs", at(logs), "--target", "feature:3", "--estimators", "pi,wpi,ips", "--json", at(js))...)
		if err := runPiopt(t, args...); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(mustRead(t, at(js)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	e1 := eval("log.txt", "e1.json")
	e2 := eval("nohdr.txt", "e2.json", append(setup, "--metric", "ndcg")...)
	for _, k := range []string{"pi", "wpi", "ips"} {
		o1, _ := e1[k].(map[string]any)
		o2, _ := e2[k].(map[string]any)
		if o1 == nil || o2 == nil || o1["value"] == nil || o1["value"] != o2["value"] {
			v1, v2 := o1["value"], o2["value"]
			t.Errorf("%s: headerless %v, headered %v", k, v2, v1)
		}
	}

	sel := func(logs string, flags ...string) string {
		out, err := runCapture(t, append(append([]string{"select", "--logs", at(logs), "--models", "feature:3,feature:4"}, common...), flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		_, table, _ := strings.Cut(out, "\n") // the first line names the log
		return table
	}
	if s1, s2 := sel("log.txt"), sel("nohdr.txt", setup...); s1 == "" || s1 != s2 {
		t.Errorf("select on the headerless log:\n%s\nwith the header:\n%s", s2, s1)
	}

	err := impute("nohdr.txt", "t3.txt", "--slots", "3", "--rank-by", "feature:2")
	if err == nil || !strings.Contains(err.Error(), "nohdr.txt:1: no header line") || !strings.Contains(err.Error(), "no --logging or --policy") {
		t.Errorf("headerless log without --logging: %v", err)
	}
	err = impute("nohdr.txt", "t3.txt", "--slots", "3", "--logging", "pa:1", "--candidates", "5")
	if err == nil || !strings.Contains(err.Error(), "rank-by") {
		t.Errorf("headerless pa log without --rank-by: %v", err)
	}
}
