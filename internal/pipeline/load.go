package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/progress"
)

// load reads the LETOR file at path with opt, showing a progress bar of
// the bytes read on w (a terminal).
func load(ctx context.Context, path string, opt data.ReadOptions, w io.Writer) (*data.Dataset, error) {
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	bar := progress.New(w, "reading "+path, size, "bytes")
	var last int64
	opt.Progress = func(done, total int64) {
		bar.Add(done - last)
		last = done
	}
	defer bar.Done()
	if ctx == nil {
		ctx = context.Background()
	}
	return data.LoadContext(ctx, path, opt)
}

// settleMaxRel returns conv with ERR's maxrel settled on the datasets: a
// MaxRel of 0 takes their highest grade, and a given one below it (ERR would
// exceed 1), negative or above 255 (eval.CheckMaxRel) is refused, as --maxrel.
func settleMaxRel(conv eval.Conventions, ds ...*data.Dataset) (eval.Conventions, error) {
	highest := 0
	for _, x := range ds {
		highest = max(highest, x.MaxLabel())
	}
	if conv.MaxRel == 0 {
		conv.MaxRel = highest
	} else if err := eval.CheckMaxRel(conv.MaxRel, highest); err != nil {
		return eval.Conventions{}, fmt.Errorf("--%w", err)
	}
	return conv, nil
}
