package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"folio/httpx"
)

// registerProcessMetrics reads the process's memory, descriptors and start
// from /proc when scraped.
func registerProcessMetrics(reg *httpx.Registry) {
	page := float64(os.Getpagesize())
	reg.Collect("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", nil, func(emit func(float64, ...string)) {
		if f := procStatFields(); len(f) > 21 {
			if rss, err := strconv.ParseFloat(f[21], 64); err == nil {
				emit(rss * page)
			}
		}
	})
	reg.Collect("process_open_fds", "Open file descriptors.", "gauge", nil, func(emit func(float64, ...string)) {
		if d, err := os.ReadDir("/proc/self/fd"); err == nil {
			emit(float64(len(d) - 1)) // less the one reading the folder
		}
	})
	reg.Collect("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.", "gauge", nil, func(emit func(float64, ...string)) {
		f := procStatFields()
		boot, ok := bootTime()
		if len(f) <= 19 || !ok {
			return
		}
		ticks, err := strconv.ParseFloat(f[19], 64)
		if err == nil {
			// USER_HZ is 100 on every Linux architecture Go supports.
			emit(boot + ticks/100)
		}
	})
}

// procStatFields are the fields of /proc/self/stat after the command name
// (which may hold spaces): index 0 is the state, field 3 of proc(5).
func procStatFields() []string {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// bootTime is the boot time in seconds since the epoch, from /proc/stat.
func bootTime() (float64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n, err == nil
		}
	}
	return 0, false
}
