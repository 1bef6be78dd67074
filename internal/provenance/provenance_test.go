package provenance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// HashInputs gives what sha256sum gives, the file's size, and each path
// once.
func TestHashInputs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	content := bytes.Repeat([]byte("0 qid:1 1:0.5\n"), 100_000) // 1.4 MB: several reads
	if err := os.WriteFile(a, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := HashInputs(a, b, a)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	want := []Input{{Path: a, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(content))},
		// sha256("abc"), FIPS 180-2's example.
		{Path: b, SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Bytes: 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if tool, err := exec.LookPath("sha256sum"); err == nil {
		out, err := exec.Command(tool, a).Output()
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(out)); f[0] != got[0].SHA256 {
			t.Errorf("sha256sum %s, HashInputs %s", f[0], got[0].SHA256)
		}
	}
	if _, err := HashInputs(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing file: %v", err)
	}
}

func TestRunPath(t *testing.T) {
	for in, want := range map[string]string{
		"out/sweep.json": "out/sweep.run.json",
		"sweep.html":     "sweep.run.json",
		"results":        "results.run.json",
		"a.json.gz":      "a.json.gz.run.json",
	} {
		if got := RunPath(in); got != want {
			t.Errorf("RunPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKey: the parts are separated, so moving a character between them
// changes the key; the key is 16 hex digits and stable.
func TestKey(t *testing.T) {
	if Key("a", "bc") == Key("ab", "c") {
		t.Error("parts not separated")
	}
	sum := sha256.Sum256([]byte("a\x003\x00"))
	if got, want := Key("a", 3), hex.EncodeToString(sum[:])[:16]; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}
