package xgboost

import (
	"fmt"
	"net"
	"strconv"
	"time"
)

// Op is a reduction of Communicator.Allreduce, numbered as XGBoost's
// collective::Operation.
type Op int

// Reductions.
const (
	OpMax Op = 0
	OpMin Op = 1
	OpSum Op = 2
)

// dataDouble is XGBoost's collective::DataType::kDouble.
const dataDouble = 7

// DefaultJoinTimeout bounds JoinCollective when CollectiveConfig.Timeout is
// 0: the tracker answers once every worker of the job has connected, so a
// worker that never starts must not leave the others waiting for ever.
const DefaultJoinTimeout = 60 * time.Second

// CollectiveConfig says how to join a distributed job run by XGBoost's
// tracker (python3 -m xgboost.tracker).
type CollectiveConfig struct {
	Tracker string        // host:port of the tracker
	TaskID  string        // the worker's name for the tracker (piopt sends its --rank)
	Timeout time.Duration // joining; 0 means DefaultJoinTimeout
}

// config returns XGCommunicatorInit's JSON configuration. The keys are the
// Rabit parameters of XGBoost 1.7's c_api.h; the values are strings, which
// XGBoost passes on to Rabit as key=value arguments.
func (c CollectiveConfig) config() (string, error) {
	host, port, err := net.SplitHostPort(c.Tracker)
	if err != nil {
		return "", fmt.Errorf("xgboost: tracker %q: want host:port: %w", c.Tracker, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("xgboost: tracker %q: bad port", c.Tracker)
	}
	task := c.TaskID
	if task == "" {
		task = "NULL"
	}
	return fmt.Sprintf(`{"xgboost_communicator":"rabit","rabit_tracker_uri":%s,"rabit_tracker_port":%s,"rabit_task_id":%s}`,
		strconv.Quote(host), strconv.Quote(port), strconv.Quote(task)), nil
}

func (c CollectiveConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultJoinTimeout
}
