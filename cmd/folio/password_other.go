//go:build !linux

package main

import "os"

// isTerminal is false where the echo cannot be switched off without a
// module the project does not take: the password is then read as a line.
func isTerminal(*os.File) bool { return false }

func readWithoutEcho(_ *os.File, read func() (string, error)) (string, error) { return read() }
