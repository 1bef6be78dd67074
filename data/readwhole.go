package data

import (
	"fmt"
	"io"
	"os"
)

// Caps of the inputs piopt reads whole into memory: a --query-file and a
// --model. A larger file is refused before it is read, naming the cap.
const (
	// MaxQueryFileBytes caps a LightGBM query file (one group size a line).
	MaxQueryFileBytes = 256 << 20
	// MaxModelBytes caps a model file.
	MaxModelBytes = 2 << 30
)

// ReadFileCapped reads the file at path whole, as os.ReadFile does, but
// refuses a device (/dev/zero would never end) and a file of more than
// limit bytes: a regular file by its size before reading, a FIFO or pipe
// after limit bytes. what names the input in errors (e.g. "--model").
func ReadFileCapped(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	mode := st.Mode()
	switch {
	case mode&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket) != 0:
		return nil, fmt.Errorf("%s %s: not a regular file (%s), refused: it is read whole", what, path, mode.Type())
	case mode.IsRegular() && st.Size() > limit:
		return nil, fmt.Errorf("%s %s: %d bytes, above the limit of %d bytes for a file read whole", what, path, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err // as os.ReadFile says it (e.g. a directory)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s %s: more than the limit of %d bytes for a file read whole", what, path, limit)
	}
	return b, nil
}
