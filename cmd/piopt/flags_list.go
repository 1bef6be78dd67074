package main

import (
	"strconv"
	"strings"
)

// listDefault is the default of a list flag as --help shows it, as one
// comma-separated value: a slice flag's own rendering ("ndcg", "err")
// reads as two values where every other list flag (rank and experiment's
// --metrics, --estimators) shows "ndcg,err", the spelling users type.
func listDefault(vals []string) string {
	return strconv.Quote(strings.Join(vals, ","))
}
