package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

// The tests below are named after the classes of issue 30's audit.

// writeFiles writes name → content into a new folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readSetupFile opens the log at path and reads its setup with f.
func readSetupFile(t *testing.T, path string, f Flags) error {
	t.Helper()
	lr, err := data.OpenLog(path, twoQueries())
	if err != nil {
		return err
	}
	defer lr.Close()
	_, _, err = ReadSetup(lr, f)
	return err
}

// A log's header and the policy file it is read with must agree: its
// logging= (when given) is what every context of the file gives, and its
// policy-sha256= (when given) is the file's content hash.
func TestSilentWrongResults_PolicyAndLogging(t *testing.T) {
	const pol = "# piopt-policy v1 slots=2\na\tpl:0.5\t0:1,1:2,2:3\nb\tpl:0.5\t0:1,1:2\n"
	const other = "# piopt-policy v1 slots=2\na\tuniform\t0,1,2\nb\tuniform\t0,1\n"
	pf, err := data.ReadPolicy(strings.NewReader(pol), "p.policy", twoQueries())
	if err != nil {
		t.Fatal(err)
	}
	sum := data.NewContentHash()
	sum.Write([]byte(pol))
	if pf.Hash != sum.Sum() || len(pf.Hash) != 16 {
		t.Fatalf("hash %q, want %q", pf.Hash, sum.Sum())
	}
	rows := "a\t0,1\t1\nb\t1,0\t0\n"
	dir := writeFiles(t, map[string]string{
		"p.policy": pol, "u.policy": other,
		"ok.log":        "# piopt-log v1 slots=2 logging=pl:0.5 policy=p.policy policy-sha256=" + pf.Hash + "\n" + rows,
		"nolog.log":     "# piopt-log v1 slots=2 policy=p.policy\n" + rows,
		"disagree.log":  "# piopt-log v1 slots=2 logging=uniform policy=p.policy\n" + rows,
		"wronghash.log": "# piopt-log v1 slots=2 logging=pl:0.5 policy=u.policy policy-sha256=" + pf.Hash + "\n" + rows,
	})
	for _, name := range []string{"ok.log", "nolog.log"} {
		if err := readSetupFile(t, filepath.Join(dir, name), Flags{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// --policy naming the right file by another name is fine.
	if err := os.Rename(filepath.Join(dir, "p.policy"), filepath.Join(dir, "q.policy")); err != nil {
		t.Fatal(err)
	}
	if err := readSetupFile(t, filepath.Join(dir, "ok.log"), Flags{Policy: filepath.Join(dir, "q.policy")}); err != nil {
		t.Errorf("--policy renamed: %v", err)
	}
	for name, f := range map[string]Flags{
		"disagree.log":  {Policy: filepath.Join(dir, "q.policy")},
		"wronghash.log": {},
		"ok.log":        {Policy: filepath.Join(dir, "u.policy")},
	} {
		err := readSetupFile(t, filepath.Join(dir, name), f)
		var pe *data.ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.File, name) || !strings.Contains(err.Error(), ".policy") || !errors.Is(err, data.ErrHeader) {
			t.Errorf("%s %+v: error %v, want one naming the log and the policy file", name, f, err)
		}
	}
}

// A flag that disagrees with the log's header is refused like --slots,
// naming the header key and the flag: the metric conventions and a
// metric's cut-off K included.
func TestSilentWrongResults_FlagVsHeader(t *testing.T) {
	const line = "# piopt-log v1 slots=2 metric=ndcg@2 logging=uniform discount=1/log2(j+1) empty-query-ndcg=0 err-maxrel=4\na\t0,1\t1\n"
	dir := writeFiles(t, map[string]string{
		"x.log": line,
		"k.log": "# piopt-log v1 slots=2 metric=ndcg@5 logging=uniform\na\t0,1\t1\n",
	})
	x := filepath.Join(dir, "x.log")
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Stated: map[string]string{"discount": "max2"}}, "header discount=1/log2(j+1) but --discount max2"},
		{Flags{Stated: map[string]string{"maxrel": "3"}}, "header err-maxrel=4 but --maxrel 3"},
		{Flags{Stated: map[string]string{"empty-ndcg": "1"}}, "header empty-query-ndcg=0 but --empty-ndcg 1"},
		{Flags{Metric: "ndcg@5", MetricSet: true}, "header slots=2 but --metric ndcg@5"},
	} {
		if err := readSetupFile(t, x, tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.f, err, tc.want)
		}
	}
	// Agreeing flags, in other spellings, are accepted.
	ok := Flags{Stated: map[string]string{"discount": "log2", "maxrel": "4", "empty-ndcg": "0"}, Metric: "ndcg@2", MetricSet: true}
	if err := readSetupFile(t, x, ok); err != nil {
		t.Errorf("agreeing flags: %v", err)
	}
	if err := readSetupFile(t, filepath.Join(dir, "k.log"), Flags{}); err == nil || !strings.Contains(err.Error(), "header metric=ndcg@5 but slots=2") {
		t.Errorf("metric=ndcg@5 with slots=2: %v", err)
	}
}
