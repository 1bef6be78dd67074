//go:build cgo

package xgboost

/*
#cgo LDFLAGS: -lxgboost
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <xgboost/c_api.h>

// The array interface carries the data pointer as an integer inside JSON, so
// it is written here in C, where the pointer arrives as a real argument that
// cgo can see and check.
static void piopt_iface(char *buf, size_t n, const float *p, bst_ulong rows, bst_ulong cols) {
	snprintf(buf, n,
		"{\"data\":[%llu,true],\"shape\":[%llu,%llu],\"typestr\":\"<f4\",\"version\":3}",
		(unsigned long long)(uintptr_t)p, (unsigned long long)rows, (unsigned long long)cols);
}

static int piopt_from_dense(const float *p, bst_ulong rows, bst_ulong cols, int nthread, DMatrixHandle *out) {
	char iface[256], cfg[96];
	piopt_iface(iface, sizeof iface, p, rows, cols);
	snprintf(cfg, sizeof cfg, "{\"missing\":NaN,\"nthread\":%d}", nthread);
	return XGDMatrixCreateFromDense(iface, cfg, out);
}

static int piopt_predict_dense(BoosterHandle b, const float *p, bst_ulong rows, bst_ulong cols,
		const char *cfg, bst_ulong const **shape, bst_ulong *dim, const float **res) {
	char iface[256];
	piopt_iface(iface, sizeof iface, p, rows, cols);
	return XGBoosterPredictFromDense(b, iface, cfg, NULL, shape, dim, res);
}

// piopt_trim gives the memory glibc keeps after XGBoost frees a large
// object (in every arena: OpenMP threads allocate from their own) back to
// the system, so that the next stage of a run finds it there.
static void piopt_trim(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static int piopt_dmatrix_free(DMatrixHandle h) {
	int rc = XGDMatrixFree(h);
	piopt_trim();
	return rc;
}

static int piopt_booster_free(BoosterHandle h) {
	int rc = XGBoosterFree(h);
	piopt_trim();
	return rc;
}

// pioptFill (fill.go) writes rows [lo, lo+n) of the matrix behind handle h
// into dst; nonzero when it failed.
extern int pioptFill(uintptr_t h, float *dst, bst_ulong lo, bst_ulong n);

// The data iterator of XGQuantileDMatrixCreateFromCallback: it hands
// XGBoost batch rows at a time, either pointing into the caller's matrix
// (data) or, when data is NULL, made by pioptFill into buf, one buffer
// reused for every batch.
typedef struct {
	DMatrixHandle proxy;
	const float *data, *labels, *weights;
	uintptr_t fill;
	float *buf;
	bst_ulong rows, cols, batch;
	bst_ulong pos;
	int failed;
	char err[4096];
} piopt_iter;

static void piopt_iter_reset(DataIterHandle h) { ((piopt_iter *)h)->pos = 0; }

static int piopt_iter_next(DataIterHandle h) {
	piopt_iter *it = (piopt_iter *)h;
	char iface[256];
	bst_ulong lo = it->pos, n;
	if (lo >= it->rows || it->failed) return 0;
	n = it->rows - lo < it->batch ? it->rows - lo : it->batch;
	it->pos = lo + n;
	if (!it->data) {
		if (pioptFill(it->fill, it->buf, lo, n) != 0) {
			it->failed = 1;
			snprintf(it->err, sizeof it->err, "making rows %llu..%llu failed",
				(unsigned long long)lo, (unsigned long long)(lo + n));
			return 0;
		}
	}
	piopt_iface(iface, sizeof iface, it->data ? it->data + lo * it->cols : it->buf, n, it->cols);
	if (XGProxyDMatrixSetDataDense(it->proxy, iface) != 0 ||
	    (it->labels && XGDMatrixSetFloatInfo(it->proxy, "label", it->labels + lo, n) != 0) ||
	    (it->weights && XGDMatrixSetFloatInfo(it->proxy, "weight", it->weights + lo, n) != 0)) {
		it->failed = 1;
		snprintf(it->err, sizeof it->err, "%s", XGBGetLastError());
		return 0;
	}
	return 1;
}

// piopt_quantile returns 0 on success, -1 when the proxy could not be made
// (message in XGBGetLastError), -2 when making the matrix or the iterator
// failed (message in err), -3 when the batch buffer could not be allocated.
// batch and max_bin are > 0; p is the matrix, or NULL for rows made by
// pioptFill(fill, ...).
static int piopt_quantile(const float *p, uintptr_t fill, bst_ulong rows, bst_ulong cols, const float *labels,
		const float *weights, int nthread, int max_bin, DMatrixHandle ref, DMatrixHandle *out,
		char *err, size_t errn, bst_ulong batch) {
	piopt_iter it;
	char cfg[128];
	int rc;
	memset(&it, 0, sizeof it);
	it.data = p; it.fill = fill; it.rows = rows; it.cols = cols; it.labels = labels; it.weights = weights;
	it.batch = batch;
	if (!p) {
		bst_ulong n = rows < batch ? rows : batch;
		it.buf = malloc(n * cols * sizeof(float));
		if (!it.buf) return -3;
	}
	if (XGProxyDMatrixCreate(&it.proxy) != 0) {
		free(it.buf);
		return -1;
	}
	snprintf(cfg, sizeof cfg, "{\"missing\":NaN,\"nthread\":%d,\"max_bin\":%d}", nthread, max_bin);
	rc = XGQuantileDMatrixCreateFromCallback(&it, it.proxy, ref, piopt_iter_reset, piopt_iter_next, cfg, out);
	if (rc != 0) {
		// Keep XGBoost's message: freeing the proxy must not overwrite it.
		snprintf(err, errn, "%s", XGBGetLastError());
		XGDMatrixFree(it.proxy);
		free(it.buf);
		return -2;
	}
	XGDMatrixFree(it.proxy);
	free(it.buf);
	// Sketching frees ~100 MB per million rows in small chunks that glibc
	// would keep; give them back.
	piopt_trim();
	if (it.failed) {
		XGDMatrixFree(*out);
		*out = NULL;
		snprintf(err, errn, "%s", it.err);
		return -2;
	}
	return 0;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"strconv"
	"sync"
	"unsafe"
)

// Available reports whether the binding was built with cgo and can train.
const Available = true

// Version returns the version of the linked libxgboost.
func Version() (major, minor, patch int) {
	var a, b, c C.int
	C.XGBoostVersion(&a, &b, &c)
	return int(a), int(b), int(c)
}

// lastError must run on the locked OS thread of the call that failed.
func lastError(fn string) error {
	return &Error{Func: fn, Msg: cleanMessage(C.GoString(C.XGBGetLastError()))}
}

// check turns the return code of the C call fn into an error; like
// lastError it must run on the call's locked OS thread, right after it.
func check(rc C.int, fn string) error {
	if rc != 0 {
		return lastError(fn)
	}
	return nil
}

func f32ptr(s []float32) *C.float {
	if len(s) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&s[0]))
}

func threads(n int) C.int {
	if n <= 0 {
		return C.int(runtime.NumCPU())
	}
	return C.int(n)
}

// quantileBatch is the number of rows the iterator of a quantile matrix
// hands XGBoost at a time. Batches of 64 Ki rows cut the peak memory of a
// 2.16 M × 139 matrix by 160 MB and its CPU time by 7% against one batch,
// with the same bins there. It is a constant, so the bins never depend on
// anything but the data.
const quantileBatch = 1 << 16

// DMatrix is XGBoost's data matrix. Close frees it.
type DMatrix struct {
	h        C.DMatrixHandle
	rows     int
	quantile bool
	maxBin   int // bins of a quantile matrix
	cleanup  runtime.Cleanup
}

func newDMatrix(h C.DMatrixHandle, rows int, quantile bool) *DMatrix {
	m := &DMatrix{h: h, rows: rows, quantile: quantile}
	m.cleanup = runtime.AddCleanup(m, func(h C.DMatrixHandle) { C.piopt_dmatrix_free(h) }, h)
	return m
}

// NewDMatrix copies d into a new DMatrix built as opt says, with d's labels,
// weights and groups. The caller may reuse d.Data once it returns. With
// opt.Comm it is built on the communicator's thread, as a worker's share
// of a distributed training matrix: every worker of the job must build its
// own at the same point.
func NewDMatrix(d Dense, opt MatrixOptions) (*DMatrix, error) {
	if opt.Comm == nil {
		return newDMatrixHere(d, opt)
	}
	var m *DMatrix
	err := opt.Comm.run(func() (err error) {
		m, err = newDMatrixHere(d, opt)
		return err
	})
	return m, err
}

// newDMatrixHere is NewDMatrix on the calling goroutine.
func newDMatrixHere(d Dense, opt MatrixOptions) (*DMatrix, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if opt.MaxBin < 0 {
		return nil, fmt.Errorf("xgboost: max_bin %d < 0", opt.MaxBin)
	}
	if opt.ref != nil && opt.ref.h == nil {
		return nil, ErrClosed
	}
	maxBin := opt.MaxBin
	if maxBin == 0 {
		maxBin = 256 // XGBoost's default
	}
	if opt.ref != nil && (!opt.ref.quantile || opt.Build != BuildQuantile) {
		return nil, fmt.Errorf("xgboost: a reference matrix needs quantile matrices")
	}
	if d.Fill != nil && opt.Build != BuildQuantile {
		return nil, fmt.Errorf("xgboost: a matrix made by Fill can only be built as a quantile matrix")
	}
	if opt.ref != nil && opt.ref.maxBin != maxBin {
		return nil, fmt.Errorf("xgboost: max_bin %d, but the reference matrix was cut with %d bins", maxBin, opt.ref.maxBin)
	}
	h, err := createDMatrix(d, opt, maxBin)
	if err != nil {
		return nil, err
	}
	m := newDMatrix(h, d.Rows, opt.Build == BuildQuantile)
	m.maxBin = maxBin
	// A quantile matrix got labels and weights through its iterator, before
	// sketching; the others get them now.
	if opt.Build != BuildQuantile {
		if d.Labels != nil {
			err = m.SetLabels(d.Labels)
		}
		if err == nil && d.Weights != nil {
			err = m.setWeights(d.Weights)
		}
	}
	if err == nil && d.Groups != nil {
		err = m.setGroups(d.Groups)
	}
	if err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// createDMatrix makes XGBoost's matrix of d's rows (and, for a quantile
// matrix, labels and weights) on one locked OS thread, so that the error
// XGBoost keeps per thread is the one of this call.
func createDMatrix(d Dense, opt MatrixOptions, maxBin int) (C.DMatrixHandle, error) {
	rows, cols := C.bst_ulong(d.Rows), C.bst_ulong(d.Cols)
	nt := threads(opt.Threads)
	var h C.DMatrixHandle
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(opt.ref)
	defer runtime.KeepAlive(d.Data)
	switch opt.Build {
	case BuildQuantile:
		var ref C.DMatrixHandle
		if opt.ref != nil {
			ref = opt.ref.h
		}
		var fill C.uintptr_t
		if d.Data == nil {
			f := &filler{fill: d.Fill, cols: d.Cols}
			hf := cgo.NewHandle(f)
			defer hf.Delete()
			defer f.repanic()
			fill = C.uintptr_t(hf)
		}
		var msg [4096]C.char
		rc := C.piopt_quantile(f32ptr(d.Data), fill, rows, cols, f32ptr(d.Labels), f32ptr(d.Weights),
			nt, C.int(maxBin), ref, &h, &msg[0], C.size_t(len(msg)), quantileBatch)
		switch rc {
		case 0:
		case -2:
			return nil, &Error{Func: "XGQuantileDMatrixCreateFromCallback", Msg: cleanMessage(C.GoString(&msg[0]))}
		case -3:
			return nil, fmt.Errorf("xgboost: no memory for a batch of %d×%d values", min(d.Rows, quantileBatch), d.Cols)
		default:
			return nil, lastError("XGProxyDMatrixCreate")
		}
	case BuildDense:
		if C.piopt_from_dense(f32ptr(d.Data), rows, cols, nt, &h) != 0 {
			return nil, lastError("XGDMatrixCreateFromDense")
		}
	case BuildMatOMP:
		nan := C.float(float32NaN())
		if C.XGDMatrixCreateFromMat_omp(f32ptr(d.Data), rows, cols, nan, &h, nt) != 0 {
			return nil, lastError("XGDMatrixCreateFromMat_omp")
		}
	default:
		return nil, fmt.Errorf("xgboost: unknown matrix build %v", opt.Build)
	}
	return h, nil
}

// Close frees the matrix; a booster that cached it forgets it. Closing
// twice is harmless.
func (m *DMatrix) Close() error {
	if m == nil || m.h == nil {
		return nil
	}
	m.cleanup.Stop()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.piopt_dmatrix_free(m.h)
	m.h = nil
	return check(rc, "XGDMatrixFree")
}

func (m *DMatrix) setFloat(field string, v []float32) error {
	if m == nil || m.h == nil {
		return ErrClosed
	}
	if err := checkRowInfo(field+"s", len(v), true, m.rows); err != nil {
		return err
	}
	cf := C.CString(field)
	defer C.free(unsafe.Pointer(cf))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGDMatrixSetFloatInfo(m.h, cf, f32ptr(v), C.bst_ulong(len(v)))
	runtime.KeepAlive(v)
	return check(rc, "XGDMatrixSetFloatInfo("+field+")")
}

// SetLabels replaces the labels, one per row: a quantile matrix's bins do
// not depend on them, so one matrix serves trainings on the same rows and
// weights with other labels (trainer.MatrixCache).
func (m *DMatrix) SetLabels(v []float32) error { return m.setFloat("label", v) }

// setWeights sets one weight per row. A quantile matrix was sketched at
// creation: give its weights in Dense.Weights so the bins see them.
func (m *DMatrix) setWeights(v []float32) error { return m.setFloat("weight", v) }

// setGroups sets the sizes of consecutive query groups (ranking objectives).
func (m *DMatrix) setGroups(g []uint32) error {
	if m == nil || m.h == nil {
		return ErrClosed
	}
	if err := checkGroups(g, m.rows); err != nil {
		return err
	}
	cf := C.CString("group")
	defer C.free(unsafe.Pointer(cf))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.XGDMatrixSetUIntInfo(m.h, cf, (*C.unsigned)(unsafe.Pointer(&g[0])), C.bst_ulong(len(g)))
	runtime.KeepAlive(g)
	return check(rc, "XGDMatrixSetUIntInfo(group)")
}

// floatInfo returns a copy of a float field: "label", "weight" or
// "base_margin".
func (m *DMatrix) floatInfo(field string) ([]float32, error) {
	if m == nil || m.h == nil {
		return nil, ErrClosed
	}
	cf := C.CString(field)
	defer C.free(unsafe.Pointer(cf))
	var n C.bst_ulong
	var p *C.float
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if C.XGDMatrixGetFloatInfo(m.h, cf, &n, &p) != 0 {
		return nil, lastError("XGDMatrixGetFloatInfo(" + field + ")")
	}
	out := make([]float32, int(n))
	if n > 0 {
		copy(out, unsafe.Slice((*float32)(unsafe.Pointer(p)), int(n)))
	}
	return out, nil
}

// nonMissing returns the number of values XGBoost stores as present.
func (m *DMatrix) nonMissing() (int, error) {
	if m == nil || m.h == nil {
		return 0, ErrClosed
	}
	var n C.bst_ulong
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if C.XGDMatrixNumNonMissing(m.h, &n) != 0 {
		return 0, lastError("XGDMatrixNumNonMissing")
	}
	return int(n), nil
}

// worker is an OS thread that makes every call of one booster. XGBoost
// keeps a learner's prediction cache (the matrices given at creation and the
// predictions of each round) in thread-local storage keyed by the learner, so
// a booster used from several OS threads loses its cache: the first round
// then fails ("0 feature is supplied") and later rounds recompute every
// tree's predictions. Goroutines move between OS threads, hence this thread.
// It also reads XGBGetLastError and the thread-local output buffers.
type worker chan func()

func startWorker() worker {
	w := make(worker)
	go func() {
		// Never unlocked: when the channel closes the goroutine exits and
		// the OS thread ends with it, releasing XGBoost's thread-local
		// state (caches, OpenMP team).
		runtime.LockOSThread()
		for f := range w {
			f()
		}
	}()
	return w
}

// run calls f on the worker thread and waits for it.
func (w worker) run(f func()) {
	done := make(chan struct{})
	w <- func() {
		defer close(done)
		f()
	}
	<-done
}

// boosterState is what a Booster's cleanup needs, without the Booster.
type boosterState struct {
	h    C.BoosterHandle
	w    worker
	comm *Communicator // owner of w when the booster trains in a job
}

func (s boosterState) free() C.int {
	var rc C.int
	s.w.run(func() { rc = C.piopt_booster_free(s.h) })
	if s.comm != nil {
		s.comm.release()
	} else {
		close(s.w)
	}
	return rc
}

// Booster is an XGBoost learner, driven from its own OS thread. Its methods
// may be called from several goroutines; they are serialised. Close frees it.
type Booster struct {
	mu      sync.Mutex
	s       boosterState
	maxBin  int // the max_bin parameter, checked against quantile matrices
	cleanup runtime.Cleanup
}

// create makes a booster on the thread w (a new one when nil; comm's
// otherwise, which the caller counted); mk runs on that thread.
func create(w worker, comm *Communicator, mk func(out *C.BoosterHandle) error) (*Booster, error) {
	if w == nil {
		w = startWorker()
	}
	var h C.BoosterHandle
	var err error
	w.run(func() { err = mk(&h) })
	if err != nil {
		if comm == nil {
			close(w)
		}
		return nil, err
	}
	b := &Booster{s: boosterState{h: h, w: w, comm: comm}, maxBin: 256}
	b.cleanup = runtime.AddCleanup(b, func(s boosterState) { s.free() }, b.s)
	return b, nil
}

func newBooster(cache []*DMatrix) (*Booster, error) { return newBoosterOn(nil, nil, cache) }

// newBoosterOn makes a booster on the thread w of comm, or on a new thread
// when w is nil.
func newBoosterOn(w worker, comm *Communicator, cache []*DMatrix) (*Booster, error) {
	hs := make([]C.DMatrixHandle, len(cache))
	for i, m := range cache {
		if m == nil || m.h == nil {
			return nil, ErrClosed
		}
		hs[i] = m.h
	}
	b, err := create(w, comm, func(out *C.BoosterHandle) error {
		// Go memory holding C pointers may be passed to C.
		var arr *C.DMatrixHandle
		if len(hs) > 0 {
			arr = &hs[0]
		}
		return check(C.XGBoosterCreate(arr, C.bst_ulong(len(hs)), out), "XGBoosterCreate")
	})
	runtime.KeepAlive(cache)
	return b, err
}

// NewBooster creates a booster with the given parameters, set in order.
// cache lists the matrices the booster will train and evaluate on, so that
// their predictions are kept between rounds (XGBoost holds them weakly:
// closing a matrix drops it from the cache). XGBoost validates parameters
// only when the booster first configures itself, at the first Update.
func NewBooster(params []Param, cache ...*DMatrix) (*Booster, error) {
	b, err := newBooster(cache)
	if err != nil {
		return nil, err
	}
	if err := b.setParams(params); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// setParams sets params in order.
func (b *Booster) setParams(params []Param) error {
	for _, p := range params {
		if err := b.setParam(p.Name, p.Value); err != nil {
			return err
		}
	}
	return nil
}

// LoadBooster creates a booster from a saved model (any format XGBoost
// reads: JSON, UBJ or legacy binary).
func LoadBooster(model []byte) (*Booster, error) {
	b, err := newBooster(nil)
	if err != nil {
		return nil, err
	}
	if err := b.load(model); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close frees the booster and ends its thread; closing twice is harmless.
func (b *Booster) Close() error {
	return b.ifOpen(nil, func() error {
		b.cleanup.Stop()
		var err error
		if rc := b.s.free(); rc != 0 {
			err = &Error{Func: "XGBoosterFree", Msg: "failed"}
		}
		b.s = boosterState{}
		return err
	})
}

// do runs f on b's thread with b locked, or returns ErrClosed.
func (b *Booster) do(f func(h C.BoosterHandle) error) error {
	return b.ifOpen(ErrClosed, func() error {
		var err error
		b.s.w.run(func() { err = f(b.s.h) })
		return err
	})
}

// ifOpen runs f with b locked if b is open (not nil, not closed), else
// returns closed: the one test of openness, under the lock, so that Close
// and every call agree.
func (b *Booster) ifOpen(closed error, f func() error) error {
	if b == nil {
		return closed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s.w == nil {
		return closed
	}
	return f()
}

// setParam sets one parameter.
func (b *Booster) setParam(name, value string) error {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	return b.do(func(h C.BoosterHandle) error {
		if C.XGBoosterSetParam(h, cn, cv) != 0 {
			return lastError("XGBoosterSetParam(" + name + ")")
		}
		if name == "max_bin" {
			if n, err := strconv.Atoi(value); err == nil {
				b.maxBin = n
			}
		}
		return nil
	})
}

// Update runs boosting round iter (0-based) on train.
func (b *Booster) Update(iter int, train *DMatrix) error {
	if train == nil || train.h == nil {
		return ErrClosed
	}
	err := b.do(func(h C.BoosterHandle) error {
		// XGBoost 1.7 trains a quantile matrix on its own bins whatever
		// the booster's max_bin says; refuse instead of ignoring it.
		if train.quantile && train.maxBin != b.maxBin {
			return fmt.Errorf("xgboost: booster max_bin %d, but the quantile matrix was cut with %d bins", b.maxBin, train.maxBin)
		}
		return check(C.XGBoosterUpdateOneIter(h, C.int(iter), train.h), "XGBoosterUpdateOneIter")
	})
	runtime.KeepAlive(train)
	return err
}

// evalString evaluates the booster's metrics on sets after round iter and
// returns XGBoost's string, "[iter]\tname-metric:value...".
func (b *Booster) evalString(iter int, sets ...EvalSet) (string, error) {
	if len(sets) == 0 {
		return "", fmt.Errorf("xgboost: nothing to evaluate")
	}
	hs := make([]C.DMatrixHandle, len(sets))
	names := make([]*C.char, len(sets))
	for i, s := range sets {
		if err := checkEvalName(s.Name); err != nil {
			return "", err
		}
		if s.Matrix == nil || s.Matrix.h == nil {
			return "", ErrClosed
		}
		hs[i] = s.Matrix.h
		names[i] = C.CString(s.Name)
		defer C.free(unsafe.Pointer(names[i]))
	}
	var res string
	err := b.do(func(h C.BoosterHandle) error {
		var out *C.char
		if C.XGBoosterEvalOneIter(h, C.int(iter), &hs[0], &names[0], C.bst_ulong(len(sets)), &out) != 0 {
			return lastError("XGBoosterEvalOneIter")
		}
		res = C.GoString(out)
		return nil
	})
	runtime.KeepAlive(sets)
	return res, err
}

// Eval evaluates the booster's metrics on sets after round iter.
func (b *Booster) Eval(iter int, sets ...EvalSet) ([]EvalResult, error) {
	s, err := b.evalString(iter, sets...)
	if err != nil {
		return nil, err
	}
	_, res, err := parseEval(s)
	return res, err
}

// copyPrediction copies XGBoost's thread-local prediction buffer.
func copyPrediction(shape *C.bst_ulong, dim C.bst_ulong, res *C.float) []float32 {
	n := 1
	for _, s := range unsafe.Slice(shape, int(dim)) {
		n *= int(s)
	}
	out := make([]float32, n)
	if n > 0 {
		copy(out, unsafe.Slice((*float32)(unsafe.Pointer(res)), n))
	}
	return out
}

// Predict returns one prediction per row of m. XGBoost caches the
// predictions of a matrix: predicting twice on it is cheap.
func (b *Booster) Predict(m *DMatrix, opt PredictOptions) ([]float32, error) {
	if m == nil || m.h == nil {
		return nil, ErrClosed
	}
	out, err := b.predict("XGBoosterPredictFromDMatrix", opt, func(h C.BoosterHandle, cfg *C.char, shape **C.bst_ulong, dim *C.bst_ulong, res **C.float) C.int {
		return C.XGBoosterPredictFromDMatrix(h, m.h, cfg, shape, dim, res)
	})
	runtime.KeepAlive(m)
	return out, err
}

// PredictDense predicts a dense row-major matrix in place, without making
// a DMatrix (XGBoosterPredictFromDense). NaN is missing.
func (b *Booster) PredictDense(x []float32, rows, cols int, opt PredictOptions) ([]float32, error) {
	d := Dense{Data: x, Rows: rows, Cols: cols}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	out, err := b.predict("XGBoosterPredictFromDense", opt, func(h C.BoosterHandle, cfg *C.char, shape **C.bst_ulong, dim *C.bst_ulong, res **C.float) C.int {
		return C.piopt_predict_dense(h, f32ptr(x), C.bst_ulong(rows), C.bst_ulong(cols), cfg, shape, dim, res)
	})
	runtime.KeepAlive(x)
	return out, err
}

// predict runs one of XGBoost's predict calls (named fn in errors) with
// opt's configuration on the booster's thread and copies the result out
// before the thread's buffer can be reused.
func (b *Booster) predict(fn string, opt PredictOptions, call func(h C.BoosterHandle, cfg *C.char, shape **C.bst_ulong, dim *C.bst_ulong, res **C.float) C.int) ([]float32, error) {
	cfg := C.CString(opt.config())
	defer C.free(unsafe.Pointer(cfg))
	var out []float32
	err := b.do(func(h C.BoosterHandle) error {
		var shape *C.bst_ulong
		var dim C.bst_ulong
		var res *C.float
		if call(h, cfg, &shape, &dim, &res) != 0 {
			return lastError(fn)
		}
		out = copyPrediction(shape, dim, res)
		return nil
	})
	return out, err
}

// Save serialises the model (trees, objective, base score, attributes; no
// training parameters) in format f.
func (b *Booster) Save(f Format) ([]byte, error) {
	if err := f.valid(); err != nil {
		return nil, err
	}
	var out []byte
	err := b.do(func(h C.BoosterHandle) (err error) {
		out, err = saveModel(h, f)
		return err
	})
	return out, err
}

// saveModel serialises the booster h in format f. It must run on the
// thread that owns h, and copies the buffer out before another call on the
// thread reuses it.
func saveModel(h C.BoosterHandle, f Format) ([]byte, error) {
	cfg := C.CString(`{"format":"` + string(f) + `"}`)
	defer C.free(unsafe.Pointer(cfg))
	var n C.bst_ulong
	var p *C.char
	if C.XGBoosterSaveModelToBuffer(h, cfg, &n, &p) != 0 {
		return nil, lastError("XGBoosterSaveModelToBuffer")
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n)), nil
}

// load replaces the model by a saved one (JSON, UBJ or legacy binary).
func (b *Booster) load(model []byte) error {
	if len(model) == 0 {
		return fmt.Errorf("xgboost: empty model")
	}
	err := b.do(func(h C.BoosterHandle) error {
		return check(C.XGBoosterLoadModelFromBuffer(h, unsafe.Pointer(&model[0]), C.bst_ulong(len(model))), "XGBoosterLoadModelFromBuffer")
	})
	runtime.KeepAlive(model)
	return err
}

// Rounds returns the number of boosting rounds in the model.
func (b *Booster) Rounds() (int, error) {
	var n C.int
	err := b.do(func(h C.BoosterHandle) error {
		return check(C.XGBoosterBoostedRounds(h, &n), "XGBoosterBoostedRounds")
	})
	return int(n), err
}

// numFeatures returns the number of input columns the model was trained on.
func (b *Booster) numFeatures() (int, error) {
	var n C.bst_ulong
	err := b.do(func(h C.BoosterHandle) error {
		return check(C.XGBoosterGetNumFeature(h, &n), "XGBoosterGetNumFeature")
	})
	return int(n), err
}

// Slice returns a new booster with the trees of rounds [begin, end) and
// b's attributes.
func (b *Booster) Slice(begin, end int) (*Booster, error) {
	// The slice lives on the booster's thread; it reaches a thread of its
	// own as a saved model, which keeps trees, base score and attributes.
	model, err := b.SaveSlice(begin, end, FormatUBJ)
	if err != nil {
		return nil, err
	}
	return LoadBooster(model)
}

// SaveSlice serialises, in format f, the model of rounds [begin, end) of b:
// their trees, with b's base score and attributes.
func (b *Booster) SaveSlice(begin, end int, f Format) ([]byte, error) {
	if begin < 0 || end <= begin {
		return nil, fmt.Errorf("xgboost: slice [%d, %d) is empty", begin, end)
	}
	var model []byte
	err := b.do(func(h C.BoosterHandle) error {
		var out C.BoosterHandle
		switch C.XGBoosterSlice(h, C.int(begin), C.int(end), 1, &out) {
		case 0:
		case -2:
			return fmt.Errorf("xgboost: slice [%d, %d) out of the model's rounds", begin, end)
		default:
			return lastError("XGBoosterSlice")
		}
		defer C.XGBoosterFree(out)
		var err error
		model, err = saveModel(out, f)
		return err
	})
	return model, err
}

// SetAttr stores a string attribute in the model.
func (b *Booster) SetAttr(key, value string) error {
	ck, cv := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cv))
	return b.do(func(h C.BoosterHandle) error {
		return check(C.XGBoosterSetAttr(h, ck, cv), "XGBoosterSetAttr("+key+")")
	})
}

// DeleteAttr removes an attribute; a missing one is not an error.
func (b *Booster) DeleteAttr(key string) error {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	return b.do(func(h C.BoosterHandle) error {
		return check(C.XGBoosterSetAttr(h, ck, nil), "XGBoosterSetAttr("+key+")")
	})
}

// Attr returns an attribute and whether it exists.
func (b *Booster) Attr(key string) (value string, ok bool, err error) {
	err = b.do(func(h C.BoosterHandle) (err error) {
		value, ok, err = getAttr(h, key)
		return err
	})
	return value, ok, err
}

// getAttr reads one attribute of the booster h on the thread that owns it.
func getAttr(h C.BoosterHandle, key string) (value string, ok bool, err error) {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var out *C.char
	var found C.int
	if C.XGBoosterGetAttr(h, ck, &out, &found) != 0 {
		return "", false, lastError("XGBoosterGetAttr(" + key + ")")
	}
	if found == 0 {
		return "", false, nil
	}
	return C.GoString(out), true, nil
}

// Attrs returns every attribute.
func (b *Booster) Attrs() (map[string]string, error) {
	attrs := map[string]string{}
	err := b.do(func(h C.BoosterHandle) error {
		var n C.bst_ulong
		var names **C.char
		if C.XGBoosterGetAttrNames(h, &n, &names) != 0 {
			return lastError("XGBoosterGetAttrNames")
		}
		// Copy the names before the next call reuses the buffer.
		keys := make([]string, int(n))
		if n > 0 {
			for i, p := range unsafe.Slice(names, int(n)) {
				keys[i] = C.GoString(p)
			}
		}
		for _, k := range keys {
			v, ok, err := getAttr(h, k)
			if err != nil {
				return err
			}
			if ok {
				attrs[k] = v
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return attrs, nil
}
