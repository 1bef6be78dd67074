//go:build !unix

package xgboost

// LimitOpenMPSpin does nothing outside Unix.
func LimitOpenMPSpin() {}

// PassiveOpenMPForTests does nothing outside Unix.
func PassiveOpenMPForTests() {}
