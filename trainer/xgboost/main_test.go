//go:build cgo

package xgboost

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	PassiveOpenMPForTests()
	os.Exit(m.Run())
}
