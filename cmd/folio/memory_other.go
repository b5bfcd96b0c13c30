//go:build !linux

package main

// programRange is a mapping of the program file; none is paged out here.
type programRange struct{}

// dropProgramPages does nothing where the process's mappings cannot be
// read (docs/design.md#memory).
func dropProgramPages() ([]programRange, error) { return nil, nil }

// programReadahead has nothing to give readahead back to.
func programReadahead([]programRange) {}

// threadCount is 0 (unknown) where the process's threads cannot be
// counted, and shedThreads then leaves them alone.
func threadCount() int { return 0 }
