//go:build !unix

package xgboost

// PassiveOpenMPForTests does nothing outside Unix.
func PassiveOpenMPForTests() {}
