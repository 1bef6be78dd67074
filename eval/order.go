package eval

import "slices"

// SortByScore sets order to the positions 0..len(scores)−1 ranked by score
// descending, ties to the lower position: the one convention by which a
// scored list of documents becomes a ranking, whether a rank source orders a
// query or a validation metric ranks a model's predictions, so that both
// rank alike and reproducibly. order must have len(scores) elements; it is
// the caller's so that a loop over queries allocates nothing.
func SortByScore[F ~float32 | ~float64](order []int32, scores []F) {
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
}
