//go:build cgo

package trainer

import (
	"os"
	"testing"

	"github.com/piopt/piopt/trainer/xgboost"
)

func TestMain(m *testing.M) {
	xgboost.PassiveOpenMPForTests()
	os.Exit(m.Run())
}
