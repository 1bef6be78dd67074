//go:build cgo

package xgboost

// #include <xgboost/version_config.h>
import "C"

// headerVersion is the version of the XGBoost headers piopt was compiled
// against; Version, the library linked at run time, must agree with it on
// major and minor (the C API changes between minor releases).
func headerVersion() (major, minor, patch int) {
	return C.XGBOOST_VER_MAJOR, C.XGBOOST_VER_MINOR, C.XGBOOST_VER_PATCH
}
