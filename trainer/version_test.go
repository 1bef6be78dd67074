package trainer

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/piopt/piopt/trainer/xgboost"
)

// TestXGBoostVersion: the linked library's version, as Debian's
// libxgboost-dev 1.7 gives it, or "not linked" without cgo.
func TestXGBoostVersion(t *testing.T) {
	got := XGBoostVersion()
	if !xgboost.Available {
		if got != "not linked" {
			t.Errorf("XGBoostVersion() = %q without cgo, want \"not linked\"", got)
		}
		return
	}
	maj, min, patch := xgboost.Version()
	if want := fmt.Sprintf("%d.%d.%d", maj, min, patch); got != want || !regexp.MustCompile(`^1\.7\.[0-9]+$`).MatchString(got) {
		t.Errorf("XGBoostVersion() = %q, want %q, a 1.7.x", got, want)
	}
}
