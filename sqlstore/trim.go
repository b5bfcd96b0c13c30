package sqlstore

/*
#include <stddef.h>

// malloc_trim and mallopt are glibc's; declared weak, they are null where
// the C library has none (musl), and calling them does nothing there.
extern int malloc_trim(size_t pad) __attribute__((weak));
extern int mallopt(int param, int value) __attribute__((weak));

static int folio_trim_c_heap(void) {
	if (malloc_trim) {
		return malloc_trim(0);
	}
	return 0;
}

// M_ARENA_MAX in glibc's malloc.h.
#define FOLIO_M_ARENA_MAX -8

static int folio_limit_c_arenas(int n) {
	if (mallopt) {
		return mallopt(FOLIO_M_ARENA_MAX, n);
	}
	return 0;
}
*/
import "C"

// trimCHeap hands the C heap's free memory back to the system: SQLite
// allocates with malloc, and glibc keeps what a burst of connections
// freed in its per-thread arenas otherwise.
func trimCHeap() { C.folio_trim_c_heap() }

// cArenas is how many malloc arenas the C heap may use. glibc gives each
// thread that allocates its own arena, up to eight per core, and each
// keeps some hundreds of KiB that trimming does not return; SQLite's
// allocations are few and short, and two arenas serve them without
// waiting (docs/design.md#memory).
const cArenas = 2

// LimitCHeap bounds the C heap's arenas. The server calls it first thing,
// before any thread allocates.
func LimitCHeap() { C.folio_limit_c_arenas(cArenas) }
