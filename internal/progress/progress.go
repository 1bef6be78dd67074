package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Bar reports the progress of one task. A nil *Bar is valid and silent, so
// library code can take a *Bar without checking. Add is safe for concurrent
// use and cheap (one atomic add); drawing happens at most 10 times a second.
type Bar struct {
	w     io.Writer
	label string
	unit  string
	total int64
	done  atomic.Int64
	start time.Time
	mu    sync.Mutex
	last  time.Time
}

// New returns a bar that draws to w when w is a terminal, or nil otherwise.
// total may be 0 when unknown.
func New(w io.Writer, label string, total int64, unit string) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return &Bar{w: w, label: label, unit: unit, total: total, start: time.Now()}
}

// Add records n more units of work done.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	d := b.done.Add(n)
	now := time.Now()
	if !b.mu.TryLock() {
		return
	}
	defer b.mu.Unlock()
	if now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	b.draw(d, now)
}

// Status replaces the label's detail text (e.g. a loss) on the next draw.
func (b *Bar) Status(s string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.label = s
	b.mu.Unlock()
}

func (b *Bar) draw(d int64, now time.Time) {
	el := now.Sub(b.start).Seconds()
	if b.total > 0 {
		frac := float64(d) / float64(b.total)
		eta := ""
		if frac > 0 && frac < 1 {
			eta = fmt.Sprintf(" ETA %s", (time.Duration(el/frac*(1-frac)) * time.Second).Round(time.Second))
		}
		fmt.Fprintf(b.w, "\r\033[K%s %5.1f%% (%d/%d %s)%s", b.label, 100*frac, d, b.total, b.unit, eta)
		return
	}
	fmt.Fprintf(b.w, "\r\033[K%s %d %s (%.0f/s)", b.label, d, b.unit, float64(d)/max(el, 1e-9))
}

// Done clears the line.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\033[K")
}
