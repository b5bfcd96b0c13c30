//go:build !linux

package main

import "folio/httpx"

// registerProcessMetrics registers nothing where /proc is not there to
// read (docs/observability.md).
func registerProcessMetrics(*httpx.Registry) {}
