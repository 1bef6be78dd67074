// Package xgboosttest holds test support shared by the tests of trainer and
// trainer/xgboost: both promise that a model's bytes are a function of its
// seed alone, and check that promise with one helper. It imports nothing of
// piopt, so the binding's own tests may use it.
package xgboosttest
