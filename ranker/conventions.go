package ranker

import "github.com/piopt/piopt/eval"

// ConventionsJSON is the JSON form of metric conventions in summaries.
type ConventionsJSON struct {
	Discount       string `json:"discount"`         // "1/log2(j+1)" or "1/log2(max(j,2))"
	EmptyQueryNDCG int    `json:"empty-query-ndcg"` // NDCG of a query without relevant documents
	ERRMaxRel      int    `json:"err-maxrel"`
	Text           string `json:"text"` // eval.Conventions.String()
}

// NewConventionsJSON describes c for a JSON summary.
func NewConventionsJSON(c eval.Conventions) ConventionsJSON {
	return ConventionsJSON{Discount: c.Discount.String(), EmptyQueryNDCG: c.EmptyQueryNDCG(), ERRMaxRel: c.MaxRel, Text: c.String()}
}
