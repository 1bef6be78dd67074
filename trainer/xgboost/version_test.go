//go:build cgo

package xgboost

import "testing"

// TestVersionMatchesHeader: the library linked at run time is the one
// whose headers piopt was compiled with, which is what piopt --version
// reports through Version.
func TestVersionMatchesHeader(t *testing.T) {
	maj, min, patch := Version()
	hMaj, hMin, hPatch := headerVersion()
	if maj != hMaj || min != hMin || patch != hPatch {
		t.Errorf("linked libxgboost %d.%d.%d, headers %d.%d.%d", maj, min, patch, hMaj, hMin, hPatch)
	}
	if maj != 1 || min != 7 {
		t.Errorf("libxgboost %d.%d.%d, want 1.7.x (Debian's libxgboost-dev)", maj, min, patch)
	}
}
