package sweep

import "testing"

// The sweep report names the ranker choosing the candidates and, when
// another orders them, that one too.
func TestSweepReportCandidatesSource(t *testing.T) {
	for _, tc := range []struct{ rankBy, candidatesBy, want string }{
		{"", "", "document order"},
		{"feature:1", "", "feature:1"},
		{"", "tree:title@6", "tree:title@6"},
		{"tree:title@6", "tree:title@6", "tree:title@6"},
		{"lasso:title@0.01", "tree:title@6", "tree:title@6 in lasso:title@0.01's order"},
	} {
		s := &Report{RankBy: tc.rankBy, CandidatesBy: tc.candidatesBy}
		if got := s.candidatesSource(); got != tc.want {
			t.Errorf("rank by %q, candidates by %q: %q, want %q", tc.rankBy, tc.candidatesBy, got, tc.want)
		}
	}
}
