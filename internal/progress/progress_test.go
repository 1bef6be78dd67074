package progress

import (
	"bytes"
	"os"
	"testing"
	"time"
)

func TestQuietWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "work", 10, "items")
	if b != nil {
		t.Fatal("New returned a bar for a bytes.Buffer")
	}
	b.Add(5) // a nil bar must be usable
	b.Status("x")
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("wrote %q", buf.String())
	}
}

// /dev/null is a character device but no terminal: a run with 2>/dev/null
// draws no bar.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Errorf("IsTerminal(%s) = true", os.DevNull)
	}
	if b := New(f, "work", 10, "items"); b != nil {
		t.Errorf("New(%s) returned a bar", os.DevNull)
	}
}

func TestDrawsOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := &Bar{w: &buf, label: "work", total: 10, unit: "items"}
	b.Add(5)
	if !bytes.Contains(buf.Bytes(), []byte("50.0%")) {
		t.Fatalf("drew %q", buf.String())
	}
}

// RoundsEnd: the trainer stops after round best+patience (0-based), so
// with best round 11 (0-based, the 12th) and patience 50 it ends after 62
// rounds unless the cap comes first; without a best round or without
// early stopping it runs to the cap.
func TestRoundsEnd(t *testing.T) {
	for _, c := range []struct {
		trees, best, patience int
		want                  int64
	}{
		{300, 11, 50, 62},
		{300, 260, 50, 300}, // the cap first
		{300, 249, 50, 300}, // 249+1+50 = 300 exactly
		{300, -1, 50, 300},  // no validation round yet
		{300, 11, 0, 300},   // no early stopping
		{40, 0, 3, 4},
	} {
		if got := RoundsEnd(c.trees, c.best, c.patience); got != c.want {
			t.Errorf("RoundsEnd(%d, %d, %d) = %d, want %d", c.trees, c.best, c.patience, got, c.want)
		}
	}
}

// ETA with early stopping, by hand: 20 rounds in 10s is 0.5 s a round; a
// cap of 300 leaves 280 rounds, 2m20s; with best round 11 and patience 50
// the run ends at 62, so 42 rounds, 21s.
func TestETAWithEarlyStopping(t *testing.T) {
	el := 10 * time.Second
	if got := ETA(el, 20, 300); got != 140*time.Second {
		t.Errorf("to the cap: %v, want 2m20s", got)
	}
	if got := ETA(el, 20, RoundsEnd(300, 11, 50)); got != 21*time.Second {
		t.Errorf("to the early stop: %v, want 21s", got)
	}
	for _, c := range [][2]int64{{0, 300}, {300, 300}, {301, 300}} {
		if got := ETA(el, c[0], c[1]); got != 0 {
			t.Errorf("ETA(%d of %d) = %v, want 0", c[0], c[1], got)
		}
	}
	// No int64 overflow: 10^10 bytes, half done after 3 hours.
	if got := ETA(3*time.Hour, 5e9, 1e10); got != 3*time.Hour {
		t.Errorf("large counts: %v, want 3h", got)
	}
	// The bar draws the ETA to the expected end, and says where it is.
	var buf bytes.Buffer
	start := time.Unix(1000, 0)
	b := &Bar{w: &buf, label: "train", total: 300, unit: "trees", start: start}
	b.Expect(RoundsEnd(300, 11, 50))
	b.draw(20, start.Add(el))
	if want := "\r\033[Ktrain   6.7% (20/300 trees, ~62 expected) ETA 21s"; buf.String() != want {
		t.Errorf("drew %q, want %q", buf.String(), want)
	}
	buf.Reset()
	b.Expect(300)
	b.draw(20, start.Add(el))
	if want := "\r\033[Ktrain   6.7% (20/300 trees) ETA 2m20s"; buf.String() != want {
		t.Errorf("drew %q, want %q", buf.String(), want)
	}
}

// Later's bar is silent off a terminal, whether started or not.
func TestLaterQuiet(t *testing.T) {
	var buf bytes.Buffer
	add, done := Later(&buf, "dm", 10, "fits")
	add(0)
	add(3)
	done()
	_, done2 := Later(&buf, "dm", 10, "fits")
	done2()
	if buf.Len() != 0 {
		t.Fatalf("wrote %q", buf.String())
	}
}
