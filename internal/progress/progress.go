package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal. It asks the terminal driver
// (golang.org/x/term): a character device such as /dev/null is no terminal,
// so a run with 2>/dev/null draws nothing.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bar reports the progress of one task. A nil *Bar is valid and silent, so
// library code can take a *Bar without checking. Add is safe for concurrent
// use and cheap (one atomic add); drawing happens at most 10 times a second.
type Bar struct {
	w     io.Writer
	label string
	unit  string
	total int64
	// end, when between 0 and total, is where the work is expected to
	// stop early (Expect): the ETA counts to it instead of total.
	end   int64
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

// Expect says the work is now expected to end after end units, before
// the total: training that stops early (RoundsEnd). The ETA then counts to
// end; the count still shows the total, the cap.
func (b *Bar) Expect(end int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.end = end
	b.mu.Unlock()
}

// RoundsEnd is the round count at which boosting with early stopping is
// expected to end: trees, or, once a best validation round (0-based; −1:
// none yet) is known, best+1+patience rounds if that comes first (the
// trainer stops once patience rounds after the best have not improved on
// it). Without early stopping (patience 0) it is trees.
func RoundsEnd(trees, best, patience int) int64 {
	if patience <= 0 || best < 0 {
		return int64(trees)
	}
	return int64(min(trees, best+1+patience))
}

// ETA is the time left for work of end units of which done took elapsed,
// at the same pace; 0 when nothing is done yet or nothing is left.
func ETA(elapsed time.Duration, done, end int64) time.Duration {
	if done <= 0 || done >= end {
		return 0
	}
	// In floating point: elapsed·(end − done) overflows int64 nanoseconds
	// for bars counting bytes or samples.
	return time.Duration(float64(elapsed) * float64(end-done) / float64(done)).Round(time.Second)
}

func (b *Bar) draw(d int64, now time.Time) {
	el := now.Sub(b.start).Seconds()
	if b.total > 0 {
		frac := float64(d) / float64(b.total)
		end := b.total
		if b.end > 0 && b.end < b.total {
			end = b.end
		}
		eta := ""
		if d > 0 && d < end {
			eta = fmt.Sprintf(" ETA %s", ETA(now.Sub(b.start), d, end))
		}
		expect := ""
		if end < b.total {
			expect = fmt.Sprintf(", ~%d expected", end)
		}
		fmt.Fprintf(b.w, "\r\033[K%s %5.1f%% (%d/%d %s%s)%s", b.label, 100*frac, d, b.total, b.unit, expect, eta)
		return
	}
	fmt.Fprintf(b.w, "\r\033[K%s %d %s (%.0f/s)", b.label, d, b.unit, float64(d)/max(el, 1e-9))
}

// Later returns the Add and Done of a bar for work that starts later than
// now, such as a second stage behind another bar: the bar is made, and its
// clock started, by the first call of add, which a stage makes with n = 0
// as it starts, so that its ETA does not count the time before. Both are
// safe for concurrent use.
func Later(w io.Writer, label string, total int64, unit string) (add func(n int64), done func()) {
	var once sync.Once
	var b *Bar
	start := func() { b = New(w, label, total, unit) }
	add = func(n int64) {
		once.Do(start)
		b.Add(n)
	}
	done = func() {
		once.Do(func() {}) // never started: nothing to clear
		b.Done()
	}
	return add, done
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
