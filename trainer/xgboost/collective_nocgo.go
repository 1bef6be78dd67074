//go:build !cgo

package xgboost

// Communicator is a member of a distributed XGBoost job; without cgo none
// can be made.
type Communicator struct{}

// JoinCollective returns ErrNoCgo (after checking cfg).
func JoinCollective(cfg CollectiveConfig) (*Communicator, error) {
	if _, err := cfg.config(); err != nil {
		return nil, err
	}
	return nil, ErrNoCgo
}

// Rank returns 0.
func (c *Communicator) Rank() int { return 0 }

// WorldSize returns 1.
func (c *Communicator) WorldSize() int { return 1 }

// Allreduce returns ErrNoCgo.
func (c *Communicator) Allreduce(v []float64, op Op) error { return ErrNoCgo }

// Broadcast returns ErrNoCgo.
func (c *Communicator) Broadcast(buf []byte, root int) error { return ErrNoCgo }

// NewBooster returns ErrNoCgo.
func (c *Communicator) NewBooster(params []Param, cache ...*DMatrix) (*Booster, error) {
	return nil, ErrNoCgo
}

// Close does nothing.
func (c *Communicator) Close() error { return nil }
