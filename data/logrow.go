package data

// LogRow is one impression of a log that carries its policy in every row:
// a line of a JSON-lines log (.jsonl, .jsonl.gz) or a row of a Parquet log
// (.parquet), the shape a warehouse exports. A production logger scores
// documents with user features, so each impression may have a
// Plackett–Luce policy of its own; the row says which, instead of naming a
// context of a policy file. The JSON shape, exactly:
//
//	{"context": "q17", "slate": ["d3","d1","d9"], "reward": 0.42,
//	 "policy": {"spec": "pl:1", "candidates": ["d1","d3","d9","d4"], "scores": [0.2,1.3,-0.4,0.0]}}
//
// Parquet nests the same fields the same way (policy and target are
// structs, the lists are LIST columns), as DuckDB writes them.
type LogRow struct {
	Context string   `json:"context" parquet:"context,optional"`
	Slate   []string `json:"slate" parquet:"slate,optional,list"`
	Reward  *float64 `json:"reward" parquet:"reward,optional"`
	// Policy is the logging policy μ of this impression; nil when a policy
	// file (--policy) gives it per context.
	Policy *RowPolicy `json:"policy" parquet:"policy,optional"`
	// Target is an optional target policy π of this impression.
	Target *RowPolicy `json:"target" parquet:"target,optional"`
}

// RowPolicy is a policy as a row gives it. Spec is as in policy files
// (uniform, pa, pl:T, slates, eps:E,…, and for targets rank). Candidates
// are in the logger's order (for pa, its rank order). Scores are for pl
// only, one per candidate; Slates (lists of candidates) and Probs for
// slates only.
type RowPolicy struct {
	Spec       string     `json:"spec" parquet:"spec,optional"`
	Candidates []string   `json:"candidates" parquet:"candidates,optional,list"`
	Scores     []float64  `json:"scores,omitempty" parquet:"scores,optional,list"`
	Slates     [][]string `json:"slates,omitempty" parquet:"slates,optional,list"`
	Probs      []float64  `json:"probs,omitempty" parquet:"probs,optional,list"`
}
