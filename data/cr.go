package data

import (
	"bufio"
	"bytes"
)

// crReader reads text with every lone CR (an old Mac line end, not followed
// by LF) turned into LF, so that such a file is read line by line instead of
// as one line. CRLF is passed through unchanged, and so is a CR at the very
// end of the input (the line parser takes it as a line end). Finding no CR
// costs one bytes.IndexByte scan of each read.
type crReader struct {
	r *bufio.Reader
}

func (c crReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	b := p[:n]
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		var next []byte
		if i+1 < len(b) {
			next = b[i+1 : i+2]
		} else {
			next, _ = c.r.Peek(1) // empty at the end of the input
		}
		if len(next) == 1 && next[0] != '\n' {
			b[i] = '\n'
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n, err
}
