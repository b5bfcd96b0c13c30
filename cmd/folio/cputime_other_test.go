//go:build !linux

package main

import "time"

// processCPU is unknown here: benchmarks report no CPU time.
func processCPU() time.Duration { return 0 }
