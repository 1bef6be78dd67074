package policy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ranker"
)

// Setup is a logging policy over each query's candidates: what a slate
// log's header records about how its slates were drawn. Every command that
// simulates, imputes or evaluates builds it here, from flags (ParseSetup) or
// from a log's header (ReadSetup).
type Setup struct {
	Slots   int            // ℓ
	Logging impute.Logging // μ
	// RankBy is the rank source ordering each query's documents (any
	// spelling Resolve reads); "" keeps document order.
	RankBy string
	// Limit keeps each query's top Limit documents as its candidates A(x);
	// 0 keeps all.
	Limit int
	// Policy, when not nil, gives μ per context instead (a policy file:
	// Logging, RankBy and Limit are then unused).
	Policy *data.PolicyFile

	// Where the setup was read, so that a failing rank source names the
	// flag or the log header it came from: fromFlags (ParseSetup) or the
	// log's file name (ReadSetup).
	fromFlags bool
	fromLog   string
}

// Flags is a setup as spelled on a command line. The *Set fields say which
// flags the user gave: ReadSetup checks only those against a log's header.
type Flags struct {
	Slots      int
	Logging    string
	RankBy     string
	Candidates int
	Metric     string // reward metric, ndcg or err (ReadSetup only)
	Policy     string // policy file (ReadSetup only)

	SlotsSet, LoggingSet, RankBySet, CandidatesSet, MetricSet bool
}

// ParseSetup reads a setup from flags. The rank source is needed exactly
// when the logging policy ranks documents (pa); a candidate limit without
// one keeps each query's first documents by position. RankBy is returned in
// the canonical spelling Resolve's String gives.
func ParseSetup(f Flags) (Setup, error) {
	lg, err := f.check(true, true, true)
	if err != nil {
		return Setup{}, err
	}
	if lg.NeedsSlates() {
		return Setup{}, fmt.Errorf("--logging %s: an explicit slate distribution is given per context in a policy file (--policy)", lg)
	}
	if lg.NeedsRanks() && f.RankBy == "" {
		return Setup{}, fmt.Errorf("--logging %s ranks documents: give --rank-by feature:K or model:PATH", lg)
	}
	s := Setup{Slots: f.Slots, Logging: lg, Limit: f.Candidates, fromFlags: true}
	if f.RankBy != "" {
		src, err := Resolve(f.RankBy, Options{})
		if err != nil {
			return Setup{}, fmt.Errorf("--rank-by: %w", err)
		}
		s.RankBy = src.String()
	}
	return s, nil
}

// Check validates, on their own, the flags that were given, so that a
// command reading its setup from a log header later (ReadSetup) refuses a
// bad flag before it loads any data.
func (f Flags) Check() error {
	_, err := f.check(f.SlotsSet, f.LoggingSet, f.CandidatesSet)
	return err
}

// check validates the --slots, --logging and --candidates flags, each only
// when its argument says so, and returns the logging policy read (zero when
// logging is false): the one place ParseSetup, Check and ReadSetup read
// these flags.
func (f Flags) check(slots, logging, candidates bool) (impute.Logging, error) {
	var lg impute.Logging
	if slots {
		if err := checkSlots(f.Slots); err != nil {
			return lg, fmt.Errorf("--%w", err)
		}
	}
	if logging {
		var err error
		if lg, err = impute.ParseLogging(f.Logging); err != nil {
			return lg, fmt.Errorf("--logging: %w", err)
		}
	}
	if candidates && f.Candidates < 0 {
		return lg, fmt.Errorf("--candidates %d: must be ≥ 0", f.Candidates)
	}
	return lg, nil
}

// checkSlots reports a slate length outside 1..impute.MaxSlots, in words
// that follow a flag or header key name.
func checkSlots(slots int) error {
	if slots < 1 || slots > impute.MaxSlots {
		return fmt.Errorf("slots %d: must be in 1..%d", slots, impute.MaxSlots)
	}
	return nil
}

// ReadSetup reads the setup a slate log's header records and checks the
// flags that were given (slots, logging, rank-by, candidates, metric)
// against it. It also returns the log's reward metric: the header's
// metric= (e.g. "ndcg@3"), or f.Metric when given; "" when neither says.
// RankBy keeps the header's spelling.
func ReadSetup(lr *data.LogReader, f Flags) (Setup, string, error) {
	h := lr.Header()
	hdrErr := func(err error) error {
		return &data.ParseError{File: lr.Name(), Line: 1, Err: fmt.Errorf("%w: %v", data.ErrHeader, err)}
	}
	mismatch := func(key, have, flag string) error {
		return &data.ParseError{File: lr.Name(), Line: 1,
			Err: fmt.Errorf("%w: header %s=%s but --%s %s", data.ErrHeader, key, have, key, flag)}
	}
	s := Setup{Slots: lr.Slots(), RankBy: h["rank-by"], fromLog: lr.Name()}
	metric := h["metric"]
	if f.SlotsSet && f.Slots != s.Slots {
		return Setup{}, "", mismatch("slots", h["slots"], strconv.Itoa(f.Slots))
	}
	if err := checkSlots(s.Slots); err != nil {
		return Setup{}, "", hdrErr(fmt.Errorf("--%w", err))
	}
	if f.Policy != "" || h["policy"] != "" {
		m, err := f.metric(metric, s.Slots)
		if err != nil {
			return Setup{}, "", mismatch("metric", h["metric"], f.Metric)
		}
		return readPolicySetup(lr, f, s, m)
	}
	var err error
	if s.Logging, err = impute.ParseLogging(h["logging"]); err != nil {
		return Setup{}, "", hdrErr(err)
	}
	if f.LoggingSet {
		flg, err := f.check(false, true, false)
		if err != nil {
			return Setup{}, "", err
		}
		if flg != s.Logging {
			return Setup{}, "", mismatch("logging", h["logging"], f.Logging)
		}
	}
	if f.RankBySet {
		flag := f.RankBy
		if src, err := Resolve(flag, Options{}); err == nil {
			flag = src.String() // compare canonical spellings
		}
		if flag != s.RankBy {
			return Setup{}, "", mismatch("rank-by", s.RankBy, f.RankBy)
		}
	}
	if s.Limit, _, err = h.Int("candidates"); err != nil {
		return Setup{}, "", hdrErr(err)
	}
	if s.Limit < 0 {
		return Setup{}, "", hdrErr(fmt.Errorf("candidates %d: must be ≥ 0", s.Limit))
	}
	if f.CandidatesSet && f.Candidates != s.Limit {
		return Setup{}, "", mismatch("candidates", strconv.Itoa(s.Limit), strconv.Itoa(f.Candidates))
	}
	if metric, err = f.metric(metric, s.Slots); err != nil {
		return Setup{}, "", mismatch("metric", h["metric"], f.Metric)
	}
	if s.Logging.NeedsRanks() && s.RankBy == "" {
		return Setup{}, "", hdrErr(fmt.Errorf("logging %s ranks documents but the header has no rank-by=", s.Logging))
	}
	return s, metric, nil
}

// Candidates ranks every query's documents with the setup's rank source
// (trained with opt when it is a feature-subset regressor; none keeps
// document order) and keeps each query's top Limit documents. A failing
// rank source is reported as --rank-by's or the log header's.
func (s Setup) Candidates(ctx context.Context, ds *data.Dataset, opt Options) (*impute.Candidates, error) {
	var order []int32
	if s.RankBy != "" {
		src, err := Resolve(s.RankBy, opt)
		if err != nil {
			return nil, s.rankError(err)
		}
		scores, err := src.Scores(ctx, ds)
		if err != nil {
			return nil, s.rankError(err)
		}
		order = ranker.Order(ds, scores)
	}
	c, err := impute.NewCandidates(ds, order, s.Limit)
	if err != nil && s.fromLog != "" {
		return nil, s.rankError(err)
	}
	return c, err
}

// metric returns the log's reward metric: the header's (e.g. "ndcg@3"),
// or --metric when given; an error when both are given and disagree.
func (f Flags) metric(header string, slots int) (string, error) {
	if !f.MetricSet {
		return header, nil
	}
	if header != "" && header != f.Metric && header != fmt.Sprintf("%s@%d", f.Metric, slots) {
		return "", errors.New("metric mismatch")
	}
	return f.Metric, nil
}

// rankError names the origin of the rank source in err.
func (s Setup) rankError(err error) error {
	switch {
	case s.fromLog != "":
		return fmt.Errorf("%s: header rank-by=%s: %w", s.fromLog, s.RankBy, err)
	case s.fromFlags:
		return fmt.Errorf("--rank-by: %w", err)
	}
	return err
}

// Header returns the key=value fields that describe a log simulated under
// the setup on ds (read from dataPath) with reward m, samples impressions
// and seed, and the targets imputed from it: the same fields whether the
// log is written or fused into impute, so both give the same bytes.
func (s Setup) Header(dataPath string, ds *data.Dataset, m eval.Metric, samples int64, seed uint64) data.Header {
	h := data.Header{
		"slots":            strconv.Itoa(s.Slots),
		"metric":           m.Name(),
		"logging":          s.Logging.String(),
		"samples":          strconv.FormatInt(samples, 10),
		"seed":             strconv.FormatUint(seed, 10),
		"data":             filepath.Base(dataPath),
		"queries":          strconv.Itoa(ds.NumQueries()),
		"docs":             strconv.Itoa(ds.NumDocs()),
		"discount":         m.Discount.String(),
		"empty-query-ndcg": strconv.Itoa(m.EmptyQueryNDCG()),
		"err-maxrel":       strconv.Itoa(m.MaxRel),
	}
	if s.RankBy != "" {
		h["rank-by"] = s.RankBy
	}
	if s.Limit > 0 {
		h["candidates"] = strconv.Itoa(s.Limit)
	}
	return h
}
