package data

import "errors"

// Targets are the regression targets of PI-OPT: one row per logged query,
// candidate document and slot, as written by `piopt impute`.
//
// File format (text, one row per line, after a header line
// `# piopt-targets v1 key=value ...`):
//
//	qid<TAB>doc<TAB>slot<TAB>target<TAB>weight
//
// doc is the 0-based position inside the query's block, slot is 1-based.
// Rows are sorted by (query order in the dataset, doc, slot).
type Targets struct {
	Header map[string]string // key=value pairs of the header line
	Slots  int               // ℓ: the slate length the targets were made for
	Query  []int32           // query index in the Dataset
	Doc    []int32           // document position inside its query
	Slot   []uint8           // 1-based slot
	Target []float64
	Weight []float64
}

// Len returns the number of rows.
func (t *Targets) Len() int { return len(t.Target) }

// ReadTargets reads a targets file and checks it against ds (qids present,
// doc positions in range, slots within the header's slots).
// TODO(impute helper): implement.
func ReadTargets(path string, ds *Dataset) (*Targets, error) {
	return nil, errors.New("data.ReadTargets: not implemented yet")
}
