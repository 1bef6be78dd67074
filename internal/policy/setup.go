package policy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	// CandidatesBy, when not "", is the rank source (any spelling Resolve
	// reads) choosing each query's top Limit documents as its candidates
	// A(x), as the paper takes them by one fixed ranker (tree_title) for
	// every logging policy; it needs Limit > 0. Within A(x), RankBy then
	// gives the logging policy's rank order, or, when RankBy is "", the
	// candidates keep CandidatesBy's order. "" lets RankBy both choose and
	// order them.
	CandidatesBy string
	// Policy, when not nil, gives μ per context instead (a policy file:
	// Logging, RankBy, Limit and CandidatesBy are then unused).
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
	Slots        int
	Logging      string
	RankBy       string
	Candidates   int
	CandidatesBy string // rank source choosing the top Candidates documents
	Metric       string // reward metric, ndcg or err (ReadSetup only)
	Policy       string // policy file (ReadSetup only)
	// Stated are the metric-convention flags given explicitly (discount,
	// empty-ndcg, maxrel), by flag name, as given (ReadSetup only): one
	// the header contradicts is refused.
	Stated map[string]string

	SlotsSet, LoggingSet, RankBySet, CandidatesSet, CandidatesBySet, MetricSet bool
}

// ParseSetup reads a setup from flags. The rank source is needed exactly
// when the logging policy ranks documents (pa); a candidate limit without
// one keeps each query's first documents by position. --candidates-by
// needs a candidate limit. RankBy and CandidatesBy are returned in the
// canonical spelling Resolve's String gives.
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
	if f.CandidatesBy != "" {
		if f.Candidates < 1 {
			return Setup{}, errors.New("--candidates-by needs --candidates M")
		}
		src, err := Resolve(f.CandidatesBy, Options{})
		if err != nil {
			return Setup{}, fmt.Errorf("--candidates-by: %w", err)
		}
		s.CandidatesBy = src.String()
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

// OpenLog opens the slate log at path (a log without a header line is
// read with what f says) and reads its setup as ReadSetup does; the caller
// closes the reader.
func OpenLog(path string, ds *data.Dataset, f Flags) (*data.LogReader, Setup, string, error) {
	lr, err := data.OpenLogAssuming(path, ds, f.Header())
	if err != nil {
		return nil, Setup{}, "", err
	}
	s, metric, err := ReadSetup(lr, f)
	if err != nil {
		lr.Close()
		return nil, Setup{}, "", err
	}
	return lr, s, metric, nil
}

// ReadSetup reads the setup a slate log's header records and checks the
// flags that were given (slots, logging, rank-by, candidates,
// candidates-by, metric) against it. It also returns the log's reward
// metric: the header's metric= (e.g. "ndcg@3"), or f.Metric when given; ""
// when neither says. RankBy and CandidatesBy keep the header's spelling.
func ReadSetup(lr *data.LogReader, f Flags) (Setup, string, error) {
	h := lr.Header()
	hdrErr := func(err error) error {
		return &data.ParseError{File: lr.Name(), Line: 1, Err: fmt.Errorf("%w: %v", data.ErrHeader, err)}
	}
	mismatch := func(key, have, flag string) error { return Conflict(lr.Name(), key, have, key, flag) }
	s := Setup{Slots: lr.Slots(), RankBy: h["rank-by"], CandidatesBy: h["candidates-by"], fromLog: lr.Name()}
	metric := h["metric"]
	if f.SlotsSet && f.Slots != s.Slots {
		return Setup{}, "", mismatch("slots", h["slots"], strconv.Itoa(f.Slots))
	}
	if err := checkSlots(s.Slots); err != nil {
		return Setup{}, "", hdrErr(fmt.Errorf("--%w", err))
	}
	if err := f.checkMetricCutoff(lr.Name(), h, s.Slots); err != nil {
		return Setup{}, "", err
	}
	if err := CheckStated(lr.Name(), h, f.Stated); err != nil {
		return Setup{}, "", err
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
	if f.RankBySet && canonical(f.RankBy) != s.RankBy {
		return Setup{}, "", mismatch("rank-by", s.RankBy, f.RankBy)
	}
	if f.CandidatesBySet && canonical(f.CandidatesBy) != s.CandidatesBy {
		return Setup{}, "", mismatch("candidates-by", s.CandidatesBy, f.CandidatesBy)
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
	if s.CandidatesBy != "" && s.Limit < 1 {
		return Setup{}, "", hdrErr(fmt.Errorf("candidates-by=%s needs candidates= > 0", s.CandidatesBy))
	}
	if metric, err = f.metric(metric, s.Slots); err != nil {
		return Setup{}, "", mismatch("metric", h["metric"], f.Metric)
	}
	if s.Logging.NeedsRanks() && s.RankBy == "" {
		return Setup{}, "", hdrErr(fmt.Errorf("logging %s ranks documents but the header has no rank-by=", s.Logging))
	}
	return s, metric, nil
}

// canonical returns a rank source's canonical spelling, for comparing a
// flag with a header; a spelling Resolve refuses is returned as given.
func canonical(spec string) string {
	if src, err := Resolve(spec, Options{}); err == nil {
		return src.String()
	}
	return spec
}

// Candidates ranks every query's documents with the setup's rank source
// (trained with opt when it is a feature-subset regressor; none keeps
// document order) and keeps each query's top Limit documents, in that
// order; with CandidatesBy, the top Limit by CandidatesBy instead, in
// RankBy's order (CandidatesBy's without RankBy). A failing rank source is
// reported as its flag's or the log header's.
func (s Setup) Candidates(ctx context.Context, ds *data.Dataset, opt Options) (*impute.Candidates, error) {
	order, _, err := s.order(ctx, ds, opt, false)
	if err != nil {
		return nil, err
	}
	c, err := impute.NewCandidates(ds, order, s.Limit)
	if err != nil && s.fromLog != "" {
		return nil, s.rankError(err)
	}
	return c, err
}

// order returns every query's documents in the order whose first Limit
// are its candidates (ranker.Order's layout; nil is document order), and
// RankBy's scores (nil without RankBy). Without CandidatesBy that is
// RankBy's order. With it, a query's top Limit documents by CandidatesBy
// come first, sorted by their rank under RankBy, then the rest in
// CandidatesBy's order. scored resolves RankBy even when it is "" (the
// scores a Plackett–Luce policy needs), so that its absence is reported.
func (s Setup) order(ctx context.Context, ds *data.Dataset, opt Options, scored bool) ([]int32, []float64, error) {
	var (
		order  []int32
		scores []float64
	)
	if s.RankBy != "" || scored {
		var err error
		if _, scores, err = opt.scores(ctx, s.RankBy, ds); err != nil {
			return nil, nil, s.rankError(err)
		}
		order = ranker.Order(ds, scores)
	}
	if s.CandidatesBy == "" {
		return order, scores, nil
	}
	if s.Limit < 1 {
		return nil, nil, s.candidatesError(fmt.Errorf("candidate limit %d: choosing candidates by a rank source needs a limit ≥ 1", s.Limit))
	}
	if s.CandidatesBy == s.RankBy {
		return order, scores, nil // the top Limit by RankBy, already in its order
	}
	_, cscores, err := opt.scores(ctx, s.CandidatesBy, ds)
	if err != nil {
		return nil, nil, s.candidatesError(err)
	}
	return CandidateOrder(ds, cscores, scores, s.Limit), scores, nil
}

// CandidateOrder is every query's documents in the order whose first limit
// are its candidates (ranker.Order's layout): its top limit documents by
// the scores by, sorted by their rank under the scores rank (by's order
// when rank is nil), then the rest in by's order. It is a Setup's order
// with CandidatesBy and RankBy, for callers that hold the scores already.
func CandidateOrder(ds *data.Dataset, by, rank []float64, limit int) []int32 {
	order := ranker.Order(ds, by)
	if rank == nil {
		return order
	}
	byRank := ranker.Order(ds, rank)
	pos := make([]int32, len(byRank)) // pos[lo+d]: doc d's position under rank
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		for i, d := range byRank[lo:hi] {
			pos[lo+int(d)] = int32(i)
		}
		slices.SortFunc(order[lo:lo+min(limit, hi-lo)], func(a, b int32) int {
			return cmp.Compare(pos[lo+int(a)], pos[lo+int(b)])
		})
	}
	return order
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

// candidatesError names the origin of the candidates' rank source in err.
func (s Setup) candidatesError(err error) error {
	switch {
	case s.fromLog != "":
		return fmt.Errorf("%s: header candidates-by=%s: %w", s.fromLog, s.CandidatesBy, err)
	case s.fromFlags:
		return fmt.Errorf("--candidates-by: %w", err)
	}
	return err
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
	if s.CandidatesBy != "" {
		h["candidates-by"] = s.CandidatesBy
	}
	return h
}

// Header is the header a slate log without one is read with
// (data.OpenLogAssuming): the keys the given flags state, in the spelling
// a log's header would have, so that ReadSetup reads them as it reads a
// header. Flags not given are left out, and the reader names the flag a
// required key needs.
func (f Flags) Header() data.Header {
	h := data.Header{}
	if f.SlotsSet {
		h["slots"] = strconv.Itoa(f.Slots)
	}
	if f.LoggingSet {
		h["logging"] = f.Logging
	} else if f.Policy != "" {
		h["policy"] = filepath.Base(f.Policy)
	}
	if f.RankBySet {
		h["rank-by"] = canonical(f.RankBy)
	}
	if f.CandidatesSet {
		h["candidates"] = strconv.Itoa(f.Candidates)
	}
	if f.CandidatesBySet {
		h["candidates-by"] = canonical(f.CandidatesBy)
	}
	return h
}

// Conflict is the error of a flag that disagrees with what a log's header
// says about the log: the one rule for every flag a header also states
// (slots, logging, rank-by, candidates, candidates-by, metric and the
// metric conventions), naming the header key and the flag with both
// values.
func Conflict(log, key, have, flag, given string) error {
	return &data.ParseError{File: log, Line: 1,
		Err: fmt.Errorf("%w: header %s=%s but --%s %s", data.ErrHeader, key, have, flag, given)}
}

// StatedKeys maps each metric-convention flag to the log header key that
// records it.
var StatedKeys = map[string]string{"discount": "discount", "empty-ndcg": "empty-query-ndcg", "maxrel": "err-maxrel"}

// CheckStated refuses a metric-convention flag (stated: flag name → value
// as given) that the header h of the log named log contradicts: its
// rewards were scored under the header's conventions, so a flag that
// differs would silently mix two conventions. A flag the header does not
// state is left to the caller.
func CheckStated(log string, h data.Header, stated map[string]string) error {
	for _, flag := range []string{"discount", "empty-ndcg", "maxrel"} {
		given, ok := stated[flag]
		key := StatedKeys[flag]
		have := h[key]
		if !ok || have == "" {
			continue
		}
		if !sameConvention(flag, given, have) {
			return Conflict(log, key, have, flag, given)
		}
	}
	return nil
}

// sameConvention compares a convention flag's value with the header's, in
// their canonical spellings (a discount by its name, numbers by value).
func sameConvention(flag, given, have string) bool {
	if flag == "discount" {
		a, err1 := eval.ParseDiscount(given)
		b, err2 := eval.ParseDiscount(have)
		return err1 == nil && err2 == nil && a.String() == b.String()
	}
	a, err1 := strconv.Atoi(given)
	b, err2 := strconv.Atoi(have)
	if err1 != nil || err2 != nil {
		return given == have
	}
	return a == b
}

// checkMetricCutoff refuses a metric whose cut-off (ndcg@K) is not the
// log's slot count, from the header's metric= or --metric: the metric is
// always computed at k = slots, so any other K would be silently ignored.
func (f Flags) checkMetricCutoff(log string, h data.Header, slots int) error {
	check := func(m string) bool {
		_, k, ok := strings.Cut(m, "@")
		return !ok || k == strconv.Itoa(slots)
	}
	if m := h["metric"]; !check(m) {
		return &data.ParseError{File: log, Line: 1,
			Err: fmt.Errorf("%w: header metric=%s but slots=%d: the metric's cut-off must be the slot count", data.ErrHeader, m, slots)}
	}
	if f.MetricSet && !check(f.Metric) {
		return Conflict(log, "slots", h["slots"], "metric", f.Metric)
	}
	return nil
}

// checkPolicyPair refuses a policy file pf read for the log lr that does
// not belong to it: the header's policy-sha256= (written by simulate
// --policy-out) must be pf's content hash, and the header's logging=, when
// given beside a policy file, must be the logging policy every context of
// pf gives (what simulate --policy-out writes).
func checkPolicyPair(lr *data.LogReader, pf *data.PolicyFile) error {
	h := lr.Header()
	if want, ok := h[data.PolicyHashKey]; ok && want != pf.Hash {
		return &data.ParseError{File: lr.Name(), Line: 1, Err: data.Errorf(data.ErrHeader,
			"header %s=%s but the policy file %s has content hash %s: the log and the policy file do not belong together", data.PolicyHashKey, want, pf.Name, pf.Hash)}
	}
	named, ok := h["logging"]
	if !ok {
		return nil
	}
	lg, err := impute.ParseLogging(named)
	for _, e := range pf.Entries {
		elg, eerr := impute.ParseLogging(e.Spec)
		if err != nil || eerr != nil || elg != lg {
			return &data.ParseError{File: lr.Name(), Line: 1, Err: data.Errorf(data.ErrHeader,
				"header logging=%s but the policy file %s gives %s (line %d, context %s): a log's logging= beside a policy file must be the policy every context of the file gives",
				named, pf.Name, e.Spec, e.Line, e.Context)}
		}
	}
	return nil
}
