package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// madvPageout is Linux's MADV_PAGEOUT (5.4 and later; older kernels refuse
// it, and nothing happens).
const madvPageout = 21

// programRange is a mapping of the program file that dropProgramPages
// paged out.
type programRange struct{ start, end uintptr }

// dropProgramPages gives back the pages of Folio's own program file that a
// burst of requests pulled into memory: over 15 MiB of machine code and
// read-only data, which the kernel maps in large blocks and keeps mapped
// for good. Unmapping alone (MADV_DONTNEED) does not last: the next
// instruction the runtime runs maps its whole block again. So they are
// paged out (MADV_PAGEOUT): dropped from the page cache too, unless another
// process maps them, and read back from disk, with readahead, by the first
// requests that need them (docs/design.md#memory). Only mappings the
// process can neither write nor has written are touched: a page the dynamic
// loader relocated before making it read-only is the process's own copy.
//
// Until programReadahead, a page the idle process touches is read back
// alone (MADV_RANDOM): with the kernel's readahead, each collection's few
// reads of type data and stack tables brought back blocks of up to 2 MiB
// around them. It returns the mappings it paged out.
func dropProgramPages() ([]programRange, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return nil, err
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	var drop []programRange
	candidate := false // the mapping last named may be dropped
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && len(fields) >= 5 {
			candidate = false
			if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
				continue
			}
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil || end <= start {
				continue
			}
			drop = append(drop, programRange{uintptr(start), uintptr(end)})
			candidate = true
			continue
		}
		if candidate && fields[0] == "Anonymous:" && len(fields) >= 2 && fields[1] != "0" {
			drop = drop[:len(drop)-1] // written pages: the process's own
			candidate = false
		}
	}
	for _, m := range drop {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, madvPageout); e != 0 {
			return nil, e
		}
	}
	for _, m := range drop {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_RANDOM)
	}
	return drop, nil
}

// programReadahead gives the mappings dropProgramPages paged out the
// kernel's readahead back, for the requests that come: read page by page,
// the code a request runs would cost it a disk read a page.
func programReadahead(ranges []programRange) {
	for _, m := range ranges {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_NORMAL)
	}
}

// threadCount is how many OS threads the process has, 0 if unknown.
func threadCount() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
