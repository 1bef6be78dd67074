// Package xgboost is piopt's small binding of XGBoost's C API (Debian's
// libxgboost-dev 1.7, linked with -lxgboost). It owns exactly what piopt
// needs to train gradient-boosted trees: dense float32 matrices with labels,
// weights and query groups (DMatrix), boosters with parameters, one boosting
// round at a time, evaluation on held-out matrices, prediction, model
// save/load in XGBoost's JSON and legacy binary formats, and string
// attributes stored inside the model.
//
// It is the only package of piopt that uses cgo. Built with CGO_ENABLED=0 the
// same API compiles and every constructor returns ErrNoCgo, so the rest of
// piopt (pure Go) still builds and runs everything but training.
//
// Four facts of the C API shape the binding. XGBGetLastError and every
// output buffer (predictions, eval strings, saved models, attribute strings)
// live in thread-local storage of the OS thread that made the call, so each
// call runs on a locked OS thread and copies its results out before the
// thread is released. A booster's prediction cache (the matrices given at
// creation, the training predictions updated each round) is thread-local
// too: used from two OS threads, a booster fails its first round ("0
// feature is supplied") or recomputes every tree's predictions each round,
// so every Booster makes all its calls from one OS thread of its own.
// Parameters are validated only when the booster first configures itself,
// at the first Update (or Eval, Predict, Save). Missing values are NaN, so
// a 0 in a dense matrix is a real value.
//
// Handles are released by Close; a cleanup attached at creation frees a
// handle that was never closed, as a safety net only. A Booster may be used
// from several goroutines (calls are serialised); a DMatrix must not be closed
// while another goroutine uses it.
package xgboost
