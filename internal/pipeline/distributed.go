package pipeline

import (
	"fmt"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/shard"
	"github.com/piopt/piopt/trainer"
	"github.com/piopt/piopt/trainer/xgboost"
)

// JobConfig makes a training one worker of a distributed job on XGBoost's
// collective (piopt train --tracker HOST:PORT --world N --rank I).
type JobConfig struct {
	Tracker string // the tracker's host:port
	// World is the number of workers, Rank this one's (0..World−1): it
	// trains on the queries whose qid shard.Of assigns to Rank. Rank 0
	// reads the validation set, decides the selection and writes the model.
	World, Rank int
	Timeout     time.Duration // joining; 0: xgboost.DefaultJoinTimeout
}

// joinJob joins the job of cfg and agrees with the other workers on who is
// who: the tracker numbers the workers in the order they connect, so each
// sends its --rank and the worker with --rank 0 becomes the job's root. A
// job whose ranks are not 0..World−1 once each is refused on every worker.
func joinJob(cfg *JobConfig, validated bool) (*trainer.Job, error) {
	if err := shard.Check(cfg.Rank, cfg.World); err != nil {
		return nil, err
	}
	comm, err := xgboost.JoinCollective(xgboost.CollectiveConfig{Tracker: cfg.Tracker, TaskID: fmt.Sprint(cfg.Rank), Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	job, err := agree(comm, cfg)
	if err != nil {
		comm.Close()
		return nil, err
	}
	job.Validated = validated
	return job, nil
}

// agree finds the collective rank of the worker with --rank 0 after
// checking that every --rank of 0..World−1 joined once.
func agree(comm *xgboost.Communicator, cfg *JobConfig) (*trainer.Job, error) {
	if comm.WorldSize() != cfg.World {
		return nil, fmt.Errorf("--world %d, but the tracker runs a job of %d workers", cfg.World, comm.WorldSize())
	}
	ranks := make([]float64, cfg.World)
	ranks[comm.Rank()] = float64(cfg.Rank + 1)
	if err := comm.Allreduce(ranks, xgboost.OpSum); err != nil {
		return nil, fmt.Errorf("exchanging ranks: %w", err)
	}
	root, seen := -1, make([]bool, cfg.World)
	for i, r := range ranks {
		k := int(r) - 1
		if k < 0 || k >= cfg.World || seen[k] {
			return nil, fmt.Errorf("the job's workers gave ranks %v: want 0..%d once each", rankList(ranks), cfg.World-1)
		}
		seen[k] = true
		if k == 0 {
			root = i
		}
	}
	return &trainer.Job{Comm: comm, Root: root}, nil
}

func rankList(ranks []float64) []int {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		out[i] = int(r) - 1
	}
	return out
}

// isRoot reports whether this worker decides and writes: alone, or the
// job's root.
func isRoot(job *trainer.Job) bool { return job == nil || job.Comm.Rank() == job.Root }

// shardQueries keeps the queries of ds (and their rows of t, if not nil)
// that shard.Of assigns to rank among world; query indexes of the kept
// targets follow the new dataset. The features are copied, so the whole
// dataset can be dropped.
func shardQueries(ds *data.Dataset, t *data.Targets, rank, world int) (*data.Dataset, *data.Targets, error) {
	out := &data.Dataset{NumFeatures: ds.NumFeatures, QueryOffsets: []int{0}, Source: ds.Source}
	index := make([]int32, ds.NumQueries()) // new index of a kept query, or −1
	for q, qid := range ds.QIDs {
		index[q] = -1
		if shard.Of(qid, world) != rank {
			continue
		}
		index[q] = int32(len(out.QIDs))
		lo, hi := ds.Query(q)
		out.QIDs = append(out.QIDs, qid)
		out.Labels = append(out.Labels, ds.Labels[lo:hi]...)
		out.Features = append(out.Features, ds.Features[lo*ds.NumFeatures:hi*ds.NumFeatures]...)
		out.QueryOffsets = append(out.QueryOffsets, len(out.Labels))
	}
	if len(out.QIDs) == 0 {
		return nil, nil, fmt.Errorf("%s: none of its %d queries falls to rank %d of %d", ds.Source, ds.NumQueries(), rank, world)
	}
	if t == nil {
		return out, nil, nil
	}
	ts := &data.Targets{Header: t.Header, Slots: t.Slots}
	for r, q := range t.Query {
		if k := index[q]; k >= 0 {
			ts.Query = append(ts.Query, k)
			ts.Doc = append(ts.Doc, t.Doc[r])
			ts.Slot = append(ts.Slot, t.Slot[r])
			ts.Target = append(ts.Target, t.Target[r])
			ts.Weight = append(ts.Weight, t.Weight[r])
		}
	}
	if ts.Len() == 0 {
		return nil, nil, fmt.Errorf("%s: no targets for the queries of rank %d of %d", ds.Source, rank, world)
	}
	return out, ts, nil
}
