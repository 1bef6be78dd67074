package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/piopt/piopt/trainer/xgboost"
)

func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"tagged, clean", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("vcs", "git", "vcs.revision", "8cda768", "vcs.modified", "false")},
			"piopt v1.2.0\ncommit 8cda768\nXGBoost 1.7.4\n"},
		{"modified", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261122210622-8cda76834053+dirty"},
			Settings: vcs("vcs.revision", "8cda768", "vcs.modified", "true")},
			"piopt v0.0.0-20261122210622-8cda76834053+dirty\ncommit 8cda768 (modified: built with uncommitted changes)\nXGBoost 1.7.4\n"},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("-buildmode", "exe")},
			"piopt (devel)\ncommit unknown (built without VCS stamping: go build -buildvcs=true)\nXGBoost 1.7.4\n"},
		{"no build info", nil,
			"piopt (devel)\ncommit unknown (built without VCS stamping: go build -buildvcs=true)\nXGBoost 1.7.4\n"},
	} {
		if got := versionText(tc.info, "1.7.4"); got != tc.want {
			t.Errorf("%s: versionText =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestVersionFlag: piopt --version prints three lines, the last with the
// version of the libxgboost the binary is linked with.
func TestVersionFlag(t *testing.T) {
	for _, flag := range []string{"--version", "-v"} {
		out, err := runCapture(t, flag)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || lines[0] != "piopt "+pioptVersion() || !strings.HasPrefix(lines[1], "commit ") {
			t.Fatalf("piopt %s printed %q", flag, out)
		}
		want := "XGBoost not linked"
		if xgboost.Available {
			maj, min, patch := xgboost.Version()
			want = fmt.Sprintf("XGBoost %d.%d.%d", maj, min, patch)
		}
		if lines[2] != want {
			t.Errorf("piopt %s: %q, want %q", flag, lines[2], want)
		}
	}
}

// TestVersionCommit builds piopt with VCS stamping and checks that
// --version names the checked-out commit.
func TestVersionCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds piopt")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "piopt")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if want := "commit " + strings.TrimSpace(string(head)); len(lines) < 2 || !strings.HasPrefix(lines[1], want) {
		t.Errorf("piopt --version printed %q, want a line %q", out, want)
	}
	if strings.HasPrefix(lines[0], "piopt (devel)") {
		t.Errorf("piopt --version printed %q: a VCS-stamped build has a pseudo-version", out)
	}
}
