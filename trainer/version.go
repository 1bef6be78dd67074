package trainer

import (
	"fmt"

	"github.com/piopt/piopt/trainer/xgboost"
)

// XGBoostVersion is the version of the libxgboost piopt trains with, as
// "1.7.4", or "not linked" in a build without cgo, which cannot train.
func XGBoostVersion() string {
	if !xgboost.Available {
		return "not linked"
	}
	major, minor, patch := xgboost.Version()
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}
