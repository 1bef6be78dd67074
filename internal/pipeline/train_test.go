package pipeline

import (
	"testing"
	"time"

	"github.com/piopt/piopt/trainer"
)

// The summary line is piopt train's output: its wording and number formats
// are fixed.
func TestTrainResultString(t *testing.T) {
	r := TrainResult{Kind: "pi-opt", Rows: 1200, Cols: 139, Validated: true, Trained: 80, Rounds: 31, Best: 30,
		Metric: "rmse", BestScore: 0.123456789, LastTrain: 0.1, Out: "pi.model",
		Reading: 1234567 * time.Microsecond, Building: 2 * time.Millisecond,
		Timing: trainer.Timing{Matrix: 499 * time.Microsecond, Boost: 3*time.Second + 500*time.Microsecond}}
	want := "train: pi-opt model on 1200×139 rows, 80 rounds, best 31 (valid rmse 0.123457), kept 31, " +
		"train rmse 0.1; reading 1.235s, features 2ms, XGBoost matrices 0s, boosting 3.001s → pi.model"
	if got := r.String(); got != want {
		t.Errorf("validated:\n got %s\nwant %s", got, want)
	}
	// Without validation there is no best round; without truncation no
	// "kept".
	r = TrainResult{Kind: "sup", Rows: 10, Cols: 5, Trained: 20, Rounds: 20, Metric: "rmse", LastTrain: 2.5, Out: "sup.json"}
	want = "train: sup model on 10×5 rows, 20 rounds, train rmse 2.5; reading 0s, features 0s, XGBoost matrices 0s, boosting 0s → sup.json"
	if got := r.String(); got != want {
		t.Errorf("unvalidated:\n got %s\nwant %s", got, want)
	}
	r.Validated, r.Best, r.BestScore = true, 19, 2.75
	want = "train: sup model on 10×5 rows, 20 rounds, best 20 (valid rmse 2.75), train rmse 2.5; reading 0s, features 0s, XGBoost matrices 0s, boosting 0s → sup.json"
	if got := r.String(); got != want {
		t.Errorf("validated, all rounds kept:\n got %s\nwant %s", got, want)
	}
}
