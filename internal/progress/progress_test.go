package progress

import (
	"bytes"
	"testing"
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

func TestDrawsOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := &Bar{w: &buf, label: "work", total: 10, unit: "items"}
	b.Add(5)
	if !bytes.Contains(buf.Bytes(), []byte("50.0%")) {
		t.Fatalf("drew %q", buf.String())
	}
}
