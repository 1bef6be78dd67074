package atomicfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestSealJSON: the seal is the SHA-256 of the unsealed bytes (computed
// here independently, with sha256sum's value for a fixed object), json
// reads the sealed object as the unsealed one plus a field, and any edit
// breaks the seal.
func TestSealJSON(t *testing.T) {
	b, _ := json.MarshalIndent(map[string]any{"fold": 1, "value": 0.5}, "", "  ")
	b = append(b, '\n')
	sealed := SealJSON(b)
	want := fmt.Sprintf("{\n  \"fold\": 1,\n  \"value\": 0.5,\n  \"sha256\": \"%x\"\n}\n", sha256.Sum256(b))
	if string(sealed) != want {
		t.Fatalf("sealed:\n%s\nwant:\n%s", sealed, want)
	}
	if err := CheckJSON(sealed); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Fold  int
		Value float64
	}
	if err := json.Unmarshal(sealed, &v); err != nil || v.Fold != 1 || v.Value != 0.5 {
		t.Fatalf("sealed JSON reads as %+v, %v", v, err)
	}
	for i := range sealed {
		e := bytes.Clone(sealed)
		e[i] ^= 1
		if err := CheckJSON(e); err == nil {
			t.Fatalf("byte %d flipped: seal still matches", i)
		}
	}
	if err := CheckJSON(b); !errors.Is(err, ErrNoSeal) {
		t.Errorf("unsealed: %v, want %v", err, ErrNoSeal)
	}
	if string(SealJSON([]byte("{}\n"))) != "{}\n" {
		t.Error("an empty object was sealed")
	}
}

// TestSealText: the seal line covers every byte before it; edits, a cut
// file and a seal not on a line of its own are refused.
func TestSealText(t *testing.T) {
	var buf bytes.Buffer
	s := NewSealer(&buf)
	body := "# piopt-targets v1 slots=2\nq\t0\t1\t0.5\t1\n"
	io.WriteString(s, body)
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s# sha256=%x\n", body, sha256.Sum256([]byte(body)))
	if buf.String() != want {
		t.Fatalf("sealed %q, want %q", buf.String(), want)
	}
	check := func(s string) error { return CheckText(io.NewSectionReader(strings.NewReader(s), 0, int64(len(s)))) }
	if err := check(want); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(want, "0.5", "0.7", 1)
	if err := check(edited); !errors.Is(err, ErrBadSeal) {
		t.Errorf("edited: %v, want %v", err, ErrBadSeal)
	}
	for _, s := range []string{body, want[:len(want)-1], "", strings.Replace(want, "\n# sha256", "# sha256", 1)} {
		if err := check(s); !errors.Is(err, ErrNoSeal) && !errors.Is(err, ErrBadSeal) {
			t.Errorf("%q: %v, want a refusal", s, err)
		}
	}
}

// FuzzReadResume checks the readers of resume files' seals on any bytes:
// no panic, and whatever they accept has a seal that matches; sealing an
// object then checking it always succeeds.
func FuzzReadResume(f *testing.F) {
	f.Add([]byte("{\n  \"a\": 1\n}\n"))
	f.Add([]byte("x\n# sha256=" + strings.Repeat("0", 64) + "\n"))
	f.Add(SealJSON([]byte("{\n  \"fold\": 2\n}\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckJSON(b) == nil {
			n := len(b) - jsonSealLen
			body := append(bytes.Clone(b[:n]), jsonEnd...)
			if !bytes.Equal(SealJSON(body), b) {
				t.Fatalf("CheckJSON accepted %q, which is not SealJSON of its body", b)
			}
		}
		if CheckText(io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b)))) == nil {
			n := len(b) - textSealLen
			var buf bytes.Buffer
			s := NewSealer(&buf)
			s.Write(b[:n])
			s.Seal()
			if !bytes.Equal(buf.Bytes(), b) {
				t.Fatalf("CheckText accepted %q, which is not its body sealed", b)
			}
		}
		if bytes.HasSuffix(b, []byte(jsonEnd)) {
			if err := CheckJSON(SealJSON(b)); err != nil {
				t.Fatalf("SealJSON(%q) does not check: %v", b, err)
			}
		}
	})
}
