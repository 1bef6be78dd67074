package data

// Summary describes a dataset: what `piopt stats` prints.
type Summary struct {
	Queries  int
	Docs     int
	Features int
	// Documents per query.
	MinDocs, MaxDocs int
	MeanDocs         float64
	// Labels[g] is the number of documents of grade g, for g = 0..MaxLabel().
	Labels []int
	// NoRelevant counts the queries whose documents are all grade 0: NDCG's
	// ideal DCG is 0 there, so the empty-query convention decides their score.
	NoRelevant int
}

// Summary computes the dataset's summary.
func (d *Dataset) Summary() Summary {
	s := Summary{Queries: d.NumQueries(), Docs: d.NumDocs(), Features: d.NumFeatures}
	s.Labels = make([]int, d.MaxLabel()+1)
	for _, l := range d.Labels {
		s.Labels[l]++
	}
	for q := range d.NumQueries() {
		n := d.QuerySize(q)
		if q == 0 || n < s.MinDocs {
			s.MinDocs = n
		}
		s.MaxDocs = max(s.MaxDocs, n)
		rel := false
		for _, l := range d.QueryLabels(q) {
			if l > 0 {
				rel = true
				break
			}
		}
		if !rel {
			s.NoRelevant++
		}
	}
	if s.Queries > 0 {
		s.MeanDocs = float64(s.Docs) / float64(s.Queries)
	}
	return s
}
