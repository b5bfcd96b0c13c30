//go:build !linux

package main

// dropProgramPages does nothing where the process's mappings cannot be
// read (docs/design.md#memory).
func dropProgramPages() error { return nil }
