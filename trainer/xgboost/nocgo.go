//go:build !cgo

package xgboost

// Available reports whether the binding was built with cgo and can train.
const Available = false

// Version returns 0, 0, 0: no libxgboost is linked without cgo.
func Version() (major, minor, patch int) { return 0, 0, 0 }

// DMatrix is XGBoost's data matrix; without cgo none can be made.
type DMatrix struct{}

// NewDMatrix returns ErrNoCgo (after checking d, so shape errors still show).
func NewDMatrix(d Dense, opt MatrixOptions) (*DMatrix, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return nil, ErrNoCgo
}

// Close does nothing.
func (m *DMatrix) Close() error { return nil }

// SetLabels returns ErrNoCgo.
func (m *DMatrix) SetLabels(v []float32) error { return ErrNoCgo }

// setWeights returns ErrNoCgo.
func (m *DMatrix) setWeights(v []float32) error { return ErrNoCgo }

// setGroups returns ErrNoCgo.
func (m *DMatrix) setGroups(g []uint32) error { return ErrNoCgo }

// floatInfo returns ErrNoCgo.
func (m *DMatrix) floatInfo(field string) ([]float32, error) { return nil, ErrNoCgo }

// nonMissing returns ErrNoCgo.
func (m *DMatrix) nonMissing() (int, error) { return 0, ErrNoCgo }

// Booster is an XGBoost learner; without cgo none can be made.
type Booster struct{}

// NewBooster returns ErrNoCgo.
func NewBooster(params []Param, cache ...*DMatrix) (*Booster, error) { return nil, ErrNoCgo }

// LoadBooster returns ErrNoCgo.
func LoadBooster(model []byte) (*Booster, error) { return nil, ErrNoCgo }

// Close does nothing.
func (b *Booster) Close() error { return nil }

// setParam returns ErrNoCgo.
func (b *Booster) setParam(name, value string) error { return ErrNoCgo }

// Update returns ErrNoCgo.
func (b *Booster) Update(iter int, train *DMatrix) error { return ErrNoCgo }

// evalString returns ErrNoCgo.
func (b *Booster) evalString(iter int, sets ...EvalSet) (string, error) { return "", ErrNoCgo }

// Eval returns ErrNoCgo.
func (b *Booster) Eval(iter int, sets ...EvalSet) ([]EvalResult, error) { return nil, ErrNoCgo }

// Predict returns ErrNoCgo.
func (b *Booster) Predict(m *DMatrix, opt PredictOptions) ([]float32, error) { return nil, ErrNoCgo }

// PredictDense returns ErrNoCgo.
func (b *Booster) PredictDense(x []float32, rows, cols int, opt PredictOptions) ([]float32, error) {
	return nil, ErrNoCgo
}

// Save returns ErrNoCgo.
func (b *Booster) Save(f Format) ([]byte, error) { return nil, ErrNoCgo }

// load returns ErrNoCgo.
func (b *Booster) load(model []byte) error { return ErrNoCgo }

// Rounds returns ErrNoCgo.
func (b *Booster) Rounds() (int, error) { return 0, ErrNoCgo }

// numFeatures returns ErrNoCgo.
func (b *Booster) numFeatures() (int, error) { return 0, ErrNoCgo }

// Slice returns ErrNoCgo.
func (b *Booster) Slice(begin, end int) (*Booster, error) { return nil, ErrNoCgo }

// SaveSlice returns ErrNoCgo.
func (b *Booster) SaveSlice(begin, end int, f Format) ([]byte, error) { return nil, ErrNoCgo }

// SetAttr returns ErrNoCgo.
func (b *Booster) SetAttr(key, value string) error { return ErrNoCgo }

// DeleteAttr returns ErrNoCgo.
func (b *Booster) DeleteAttr(key string) error { return ErrNoCgo }

// Attr returns ErrNoCgo.
func (b *Booster) Attr(key string) (string, bool, error) { return "", false, ErrNoCgo }

// Attrs returns ErrNoCgo.
func (b *Booster) Attrs() (map[string]string, error) { return nil, ErrNoCgo }
