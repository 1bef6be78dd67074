// Package xgbmodeltest writes hand-made XGBoost models in XGBoost 1.7.4's
// own layouts (the legacy binary with "binf" and num_output_group 0, and
// JSON) and predicts with XGBoost's rule, so that xgbmodel and ranker are
// tested on the bytes XGBoost writes without needing XGBoost. (ranker's cgo
// tests check that XGBoost loads these files and predicts exactly Predict.)
// It is for tests only.
package xgbmodeltest
