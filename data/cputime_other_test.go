//go:build !unix

package data

import "time"

func cpuTime() time.Duration { return 0 }
