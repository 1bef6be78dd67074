package xgboost

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoCgo is returned by every constructor when piopt was built without cgo.
var ErrNoCgo = errors.New("training needs cgo and libxgboost-dev: build with CGO_ENABLED=1 after `make deps`")

// ErrClosed is returned when a closed DMatrix or Booster is used.
var ErrClosed = errors.New("xgboost: use of a closed handle")

// Error is a failed C API call, with XGBoost's own message.
type Error struct {
	Func string // C function that failed, e.g. "XGBoosterUpdateOneIter"
	Msg  string // XGBGetLastError, without the C++ stack trace
}

func (e *Error) Error() string { return "xgboost: " + e.Func + ": " + e.Msg }

// cleanMessage drops the C++ stack trace XGBoost appends to its messages and
// the "[hh:mm:ss] file:line: " prefix, which only clutter a user's error.
func cleanMessage(msg string) string {
	if i := strings.Index(msg, "Stack trace:"); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	if strings.HasPrefix(msg, "[") {
		// "[04:21:00] ../src/learner.cc:123: Check failed: ..."
		if i := strings.Index(msg, "] "); i > 0 {
			rest := msg[i+2:]
			if j := strings.Index(rest, ": "); j > 0 && !strings.Contains(rest[:j], " ") {
				msg = rest[j+2:]
			}
		}
	}
	return msg
}

// Format is a model serialisation format of XGBoosterSaveModelToBuffer.
type Format string

// Model formats.
const (
	// FormatJSON is XGBoost's JSON model.
	FormatJSON Format = "json"
	// FormatUBJ is XGBoost's universal binary JSON model.
	FormatUBJ Format = "ubj"
	// FormatBinary is XGBoost's legacy binary model ("deprecated" in the C
	// API): the only format leaves reads.
	FormatBinary Format = "deprecated"
)

// formatForPath returns the format XGBoost's own tools pick for a file name:
// JSON for a .json extension, UBJ for .ubj, the legacy binary otherwise.
func formatForPath(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return FormatJSON
	case ".ubj":
		return FormatUBJ
	}
	return FormatBinary
}

func (f Format) valid() error {
	switch f {
	case FormatJSON, FormatUBJ, FormatBinary:
		return nil
	}
	return fmt.Errorf("xgboost: unknown model format %q (json, ubj or deprecated)", string(f))
}

// Build selects the C API call that makes a DMatrix from dense data.
type Build int

const (
	// BuildQuantile makes a QuantileDMatrix
	// (XGQuantileDMatrixCreateFromCallback with one dense batch): the data
	// are sketched and stored as bin indices right away, without XGBoost's
	// 8-byte-per-value copy. Only tree_method=hist can train on it, with the
	// same max_bin; it predicts as any DMatrix.
	BuildQuantile Build = iota
	// BuildDense calls XGDMatrixCreateFromDense (array interface, nthread).
	BuildDense
	// BuildMatOMP calls XGDMatrixCreateFromMat_omp.
	BuildMatOMP
)

var buildNames = [...]string{"quantile", "dense", "mat-omp"}

func (b Build) String() string {
	if b >= 0 && int(b) < len(buildNames) {
		return buildNames[b]
	}
	return "Build(" + strconv.Itoa(int(b)) + ")"
}

// parseBuild parses a Build name: quantile, dense or mat-omp.
func parseBuild(s string) (Build, error) {
	for i, n := range buildNames {
		if s == n {
			return Build(i), nil
		}
	}
	return 0, fmt.Errorf("xgboost: unknown matrix build %q (quantile, dense or mat-omp)", s)
}

// Dense is a row-major float32 matrix with optional per-row information.
// NaN marks a missing value; every other value, 0 included, is present.
type Dense struct {
	Data []float32 // Rows×Cols values, row-major; nil when Fill makes them
	// Fill, when Data is nil, writes rows [lo, hi) row-major into
	// dst[:(hi−lo)·Cols]. A quantile matrix is then built batch by batch
	// (XGBoost reads every row about four times, and Fill must make the same
	// values each time) without the whole matrix in memory.
	Fill       func(dst []float32, lo, hi int)
	Rows, Cols int
	Labels     []float32 // len Rows, or nil
	Weights    []float32 // len Rows, or nil
	Groups     []uint32  // sizes of consecutive query groups summing to Rows (ranking), or nil
}

// Validate checks the shapes of d.
func (d *Dense) Validate() error {
	if d.Rows <= 0 || d.Cols <= 0 {
		return fmt.Errorf("xgboost: matrix of %d×%d: needs at least one row and one column", d.Rows, d.Cols)
	}
	switch {
	case d.Rows > math.MaxInt/d.Cols:
		return fmt.Errorf("xgboost: a %d×%d matrix has too many values", d.Rows, d.Cols)
	case d.Fill != nil && d.Data != nil:
		return fmt.Errorf("xgboost: a matrix with both values and a Fill function")
	case d.Fill == nil && len(d.Data) != d.Rows*d.Cols:
		return fmt.Errorf("xgboost: %d values for a %d×%d matrix", len(d.Data), d.Rows, d.Cols)
	}
	if err := checkRowInfo("labels", len(d.Labels), d.Labels != nil, d.Rows); err != nil {
		return err
	}
	if err := checkRowInfo("weights", len(d.Weights), d.Weights != nil, d.Rows); err != nil {
		return err
	}
	if d.Groups != nil {
		if err := checkGroups(d.Groups, d.Rows); err != nil {
			return err
		}
	}
	return nil
}

func checkRowInfo(field string, n int, set bool, rows int) error {
	if set && n != rows {
		return fmt.Errorf("xgboost: %d %s for %d rows", n, field, rows)
	}
	return nil
}

func checkGroups(g []uint32, rows int) error {
	sum := 0
	for i, s := range g {
		if s == 0 {
			return fmt.Errorf("xgboost: query group %d is empty", i)
		}
		sum += int(s)
	}
	if sum != rows {
		return fmt.Errorf("xgboost: query groups cover %d rows of %d", sum, rows)
	}
	return nil
}

// MatrixOptions control how NewDMatrix builds a matrix.
type MatrixOptions struct {
	Build   Build
	Threads int // threads used to build; 0 means all cores
	// MaxBin is the number of histogram bins of a quantile matrix; it must
	// equal the booster's max_bin. 0 means XGBoost's default, 256.
	MaxBin int
	// Comm, when not nil, builds the matrix on the thread of a distributed
	// job: its quantile sketch is then merged across the job's workers.
	Comm *Communicator
	// ref is a quantile training matrix whose bin boundaries a quantile
	// validation matrix reuses (so both are cut alike). Optional.
	ref *DMatrix
}

// PredictOptions control a prediction.
type PredictOptions struct {
	// rounds uses the trees of the first Rounds boosting rounds; 0 means all.
	rounds int
	// margin returns the raw sum of the trees plus base_score, before the
	// objective's transform (the same as the plain prediction for
	// reg:squarederror and rank:ndcg).
	margin bool
}

func (o PredictOptions) config() string {
	typ := 0
	if o.margin {
		typ = 1
	}
	return fmt.Sprintf(`{"type":%d,"training":false,"iteration_begin":0,"iteration_end":%d,"strict_shape":false,"missing":NaN,"cache_id":0}`, typ, max(o.rounds, 0))
}

// EvalSet names a matrix for Booster.Eval.
type EvalSet struct {
	Name   string // no '-', ':' or whitespace: XGBoost prints "name-metric:value"
	Matrix *DMatrix
}

// EvalResult is one value of an evaluation string.
type EvalResult struct {
	Data   string // the EvalSet name
	Metric string // e.g. "rmse", "ndcg@3"
	Value  float64
}

func checkEvalName(name string) error {
	if name == "" || strings.ContainsAny(name, "-: \t\n") {
		return fmt.Errorf("xgboost: evaluation set name %q: must be non-empty without '-', ':' or spaces", name)
	}
	return nil
}

// parseEval parses the string of XGBoosterEvalOneIter,
// "[iter]\tname-metric:value\t...".
func parseEval(s string) (iter int, res []EvalResult, err error) {
	fields := strings.Split(strings.TrimSpace(s), "\t")
	head := fields[0]
	if len(head) < 3 || head[0] != '[' || head[len(head)-1] != ']' {
		return 0, nil, fmt.Errorf("xgboost: evaluation string %q: no [iteration] prefix", s)
	}
	if iter, err = strconv.Atoi(head[1 : len(head)-1]); err != nil {
		return 0, nil, fmt.Errorf("xgboost: evaluation string %q: bad iteration", s)
	}
	for _, f := range fields[1:] {
		colon := strings.LastIndexByte(f, ':')
		dash := strings.IndexByte(f, '-')
		if colon < 0 || dash <= 0 || dash > colon {
			return 0, nil, fmt.Errorf("xgboost: evaluation string %q: bad field %q", s, f)
		}
		v, perr := strconv.ParseFloat(f[colon+1:], 64)
		if perr != nil {
			return 0, nil, fmt.Errorf("xgboost: evaluation string %q: bad value in %q", s, f)
		}
		res = append(res, EvalResult{Data: f[:dash], Metric: f[dash+1 : colon], Value: v})
	}
	return iter, res, nil
}

// Param is one booster parameter.
type Param struct{ Name, Value string }

func float32NaN() float32 { return float32(math.NaN()) }
