//go:build !linux

package main

// dropProgramPages does nothing where the process's mappings cannot be
// read (docs/design.md#memory).
func dropProgramPages() error { return nil }

// threadCount is 0 (unknown) where the process's threads cannot be
// counted, and shedThreads then leaves them alone.
func threadCount() int { return 0 }
