package data

import (
	"errors"
	"io"
	"strconv"
)

// Open starts the second pass over the row log: a LogReader whose
// records are its rows, each named by its unit (a context of rl.Policy),
// its slate in the dataset's positions. The log is read in a goroutine a
// batch of rows ahead; Close stops it. Errors name the file, the row's
// line and the field (context, slate, reward).
func (rl *RowLog) Open() (*LogReader, error) {
	names := make([][]byte, len(rl.Policy.Entries))
	for i := range rl.Policy.Entries {
		names[i] = []byte(rl.Policy.Entries[i].Context)
	}
	rs := &rowStream{batches: make(chan *rowBatch, 2), free: make(chan *rowBatch, 3), stop: make(chan struct{}),
		done: make(chan error, 1), names: names}
	for range 3 {
		rs.free <- &rowBatch{}
	}
	lr := &LogReader{lineReader: lineReader{name: rl.Path}, ds: rl.Dataset, header: Header{"slots": strconv.Itoa(rl.Slots)},
		slots: rl.Slots, contexts: true, rows: rs}
	go func() {
		err := rl.stream(rs)
		close(rs.batches)
		rs.done <- err
	}()
	return lr, nil
}

// rowStream hands batches of rows from the reading goroutine to Next.
type rowStream struct {
	batches, free chan *rowBatch
	stop          chan struct{}
	done          chan error
	stopped       bool
	names         [][]byte // per unit
	cur           *rowBatch
	k             int
	err           error // the goroutine's result, once batches is closed
	// keep caches, per query, the shard filter's answer (SetFilter):
	// 0 not asked yet, 1 kept, 2 skipped.
	keep []uint8
}

// rowBatch holds rows read ahead: unit, line, reward and the slate's
// positions (flat, off[i]..off[i+1]).
type rowBatch struct {
	unit   []int32
	query  []int32
	line   []int64
	reward []float64
	slate  []int32
	off    []int
}

const rowBatchSize = 4096

var errRowStop = errors.New("row log: stopped")

// stream reads the log again, in the goroutine.
func (rl *RowLog) stream(rs *rowStream) error {
	var b *rowBatch
	var i int64
	send := func() error {
		select {
		case rs.batches <- b:
			b = nil
			return nil
		case <-rs.stop:
			return errRowStop
		}
	}
	err := EachLogRow(rl.Path, func(n int64, r *LogRow) error {
		if i >= int64(len(rl.unit)) {
			return &ParseError{File: rl.Path, Line: int(n), Err: errorf(ErrRow, "a row the first pass did not read: the log changed while it was read")}
		}
		if b == nil {
			select {
			case b = <-rs.free:
			case <-rs.stop:
				return errRowStop
			}
			b.unit, b.query, b.line, b.reward, b.slate, b.off = b.unit[:0], b.query[:0], b.line[:0], b.reward[:0], b.slate[:0], append(b.off[:0], 0)
		}
		u := rl.unit[i]
		i++
		q := rl.Policy.Entries[u].Query
		for k, d := range r.Slate {
			p, ok := rl.Dataset.findDoc(q, []byte(d))
			if !ok {
				return &ParseError{File: rl.Path, Line: int(n), Name: elem("slate", k), Err: errorf(ErrSlate, "document %q is not in qid %s", shortenString(d), rl.Dataset.QIDs[q])}
			}
			b.slate = append(b.slate, p)
		}
		b.unit, b.query, b.line, b.reward = append(b.unit, u), append(b.query, int32(q)), append(b.line, n), append(b.reward, *r.Reward)
		b.off = append(b.off, len(b.slate))
		if len(b.unit) == rowBatchSize {
			return send()
		}
		return nil
	})
	if err == nil && b != nil && len(b.unit) > 0 {
		err = send()
	}
	if err == nil && i != int64(len(rl.unit)) {
		err = &ParseError{File: rl.Path, Err: errorf(ErrRow, "%d rows, but %d in the first pass: the log changed while it was read", i, len(rl.unit))}
	}
	return err
}

// nextRow is Next on a row log.
func (lr *LogReader) nextRow() (LogRecord, error) {
	rs := lr.rows
	for rs.cur == nil || rs.k == len(rs.cur.unit) {
		if rs.cur != nil {
			rs.free <- rs.cur
			rs.cur = nil
		}
		b, ok := <-rs.batches
		if !ok {
			if rs.err == nil {
				rs.err = <-rs.done
				if rs.err == nil {
					rs.err = io.EOF
				}
			}
			return LogRecord{}, rs.err
		}
		rs.cur, rs.k = b, 0
	}
	b, k := rs.cur, rs.k
	rs.k++
	lr.line = int(b.line[k])
	if !lr.keepRowQuery(int(b.query[k])) {
		lr.skipped++
		return lr.nextRow()
	}
	lr.n++
	return LogRecord{Query: int(b.query[k]), Context: rs.names[b.unit[k]], Slate: b.slate[b.off[k]:b.off[k+1]], Reward: b.reward[k], line: lr.line}, nil
}

// keepRowQuery reports whether the filter (SetFilter) keeps query q's
// impressions, asking it once per query.
func (lr *LogReader) keepRowQuery(q int) bool {
	if lr.keep == nil {
		return true
	}
	rs := lr.rows
	if rs.keep == nil {
		rs.keep = make([]uint8, lr.ds.NumQueries())
	}
	if rs.keep[q] == 0 {
		rs.keep[q] = 2
		if lr.keep([]byte(lr.ds.QIDs[q])) {
			rs.keep[q] = 1
		}
	}
	return rs.keep[q] == 1
}

// rowErr is Errorf on a row log: the field by name.
func (lr *LogReader) rowErr(field int, format string, args ...any) error {
	kinds := [...]error{ErrRow, ErrQID, ErrSlate, ErrNumber}
	names := [...]string{"", "context", "slate", "reward"}
	if field < 1 || field > 3 {
		field = 0
	}
	return inUnits(&ParseError{File: lr.name, Line: lr.line, Name: names[field], Err: errorf(kinds[field], format, args...)})
}

// close stops the reading goroutine and waits for it.
func (rs *rowStream) close() {
	if rs.stopped {
		return
	}
	rs.stopped = true
	close(rs.stop)
	for range rs.batches { // drain, so that a send in flight returns
	}
	if rs.err == nil {
		<-rs.done
	}
}
