//go:build cgo

package xgboost

/*
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <xgboost/c_api.h>

// piopt_block_preemption blocks, on the calling thread only, the signals
// Go's runtime sends to a thread (see Communicator): SIGURG, its
// asynchronous preemption, and SIGPROF, the CPU profiler's tick.
static int piopt_block_preemption(void) {
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGURG);
	sigaddset(&s, SIGPROF);
	return pthread_sigmask(SIG_BLOCK, &s, NULL);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Communicator is this process's membership of a distributed XGBoost job
// (Rabit, XGBoost's own collective: the engine its Spark and Dask
// integrations drive). XGBoost 1.7 keeps the communicator in thread-local
// storage, so every call that communicates runs on the one OS thread that
// joined: building a training matrix (its column count is agreed and its
// quantile sketch merged across workers), every boosting round (the
// gradient histograms are summed across workers), the evaluation of a
// metric, Allreduce and Broadcast. A Communicator owns that thread; the
// matrices built with MatrixOptions.Comm and the boosters of NewBooster run
// there. Every worker must make the same communicating calls in the same
// order.
//
// That thread blocks SIGURG and SIGPROF. Rabit waits for its peers in
// poll(2) and treats any failure as fatal ("Failed to poll."), EINTR
// included, and a signal handler interrupts poll whatever SA_RESTART says.
// Go's runtime preempts goroutines by sending SIGURG to their thread, and
// the signal can land after the goroutine has entered the cgo call: strace
// showed a worker's thread taking SIGURG (SI_TKILL from its own process)
// in poll, which returned EINTR, and the worker died. It came in about one
// loaded test run in a dozen, and in each of 3 two-worker trainings on
// synth data where rank 1 waited in Broadcast while rank 0 validated
// (docs/distributed.md). Blocked, the signal stays pending and Go
// preempts that goroutine at its next function call instead; it runs only
// the short closures that call XGBoost.
type Communicator struct {
	mu          sync.Mutex
	w           worker
	closed      bool // finalized: no more communicating calls
	boosters    int  // open boosters on w: the thread ends with the last of them
	rank, world int
}

// JoinCollective connects to the tracker and waits until every worker of
// the job has joined. It fails after cfg.Timeout (default 60 s); XGBoost's
// call cannot be interrupted, so its thread then stays blocked and the
// caller should end the process.
func JoinCollective(cfg CollectiveConfig) (*Communicator, error) {
	conf, err := cfg.config()
	if err != nil {
		return nil, err
	}
	c := &Communicator{w: startWorker()}
	done := make(chan error, 1)
	go c.w.run(func() {
		if rc := C.piopt_block_preemption(); rc != 0 {
			done <- fmt.Errorf("xgboost: blocking SIGURG on the communicator's thread: error %d", int(rc))
			return
		}
		cs := C.CString(conf)
		defer C.free(unsafe.Pointer(cs))
		if C.XGCommunicatorInit(cs) != 0 {
			done <- lastError("XGCommunicatorInit")
			return
		}
		c.rank, c.world = int(C.XGCommunicatorGetRank()), int(C.XGCommunicatorGetWorldSize())
		done <- nil
	})
	select {
	case err := <-done:
		if err != nil {
			close(c.w)
			return nil, fmt.Errorf("joining the tracker at %s: %w", cfg.Tracker, err)
		}
		return c, nil
	case <-time.After(cfg.timeout()):
		return nil, fmt.Errorf("xgboost: joining the tracker at %s: not every worker joined within %s", cfg.Tracker, cfg.timeout())
	}
}

// Rank is this worker's rank in the job, as the tracker assigned it.
func (c *Communicator) Rank() int { return c.rank }

// WorldSize is the number of workers in the job.
func (c *Communicator) WorldSize() int { return c.world }

// do runs f on the communicator's thread, or returns ErrClosed.
func (c *Communicator) do(f func() error) error {
	if c == nil {
		return ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	var err error
	c.w.run(func() { err = f() })
	return err
}

// Allreduce replaces v, on every worker, by the element-wise reduction op
// of every worker's v (all of the same length).
func (c *Communicator) Allreduce(v []float64, op Op) error {
	if len(v) == 0 {
		return nil
	}
	err := c.do(func() error {
		return check(C.XGCommunicatorAllreduce(unsafe.Pointer(&v[0]), C.size_t(len(v)), dataDouble, C.int(op)), "XGCommunicatorAllreduce")
	})
	runtime.KeepAlive(v)
	return err
}

// Broadcast copies root's buf into every other worker's buf (of the same
// length).
func (c *Communicator) Broadcast(buf []byte, root int) error {
	if len(buf) == 0 {
		return nil
	}
	err := c.do(func() error {
		return check(C.XGCommunicatorBroadcast(unsafe.Pointer(&buf[0]), C.size_t(len(buf)), C.int(root)), "XGCommunicatorBroadcast")
	})
	runtime.KeepAlive(buf)
	return err
}

// NewBooster is xgboost.NewBooster for a booster that trains in the job: it
// runs on the communicator's thread.
func (c *Communicator) NewBooster(params []Param, cache ...*DMatrix) (*Booster, error) {
	if c == nil {
		return nil, ErrClosed
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.boosters++
	c.mu.Unlock()
	b, err := newBoosterOn(c.w, c, cache)
	if err != nil {
		c.release()
		return nil, err
	}
	if err := b.setParams(params); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// release is called when a booster on c's thread is freed; the thread ends
// with the last one once c is closed.
func (c *Communicator) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.boosters--
	if c.closed && c.boosters == 0 {
		close(c.w)
	}
}

// Close leaves the job (XGCommunicatorFinalize tells the tracker this
// worker is done) and ends the thread. Close boosters and matrices first.
// Closing twice is harmless.
func (c *Communicator) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	var err error
	c.w.run(func() { err = check(C.XGCommunicatorFinalize(), "XGCommunicatorFinalize") })
	c.closed = true
	if c.boosters == 0 {
		close(c.w)
	}
	return err
}

// run calls f on the communicator's thread (for NewDMatrix).
func (c *Communicator) run(f func() error) error { return c.do(f) }
