package sqlstore

/*
#include <stddef.h>

// malloc_trim is glibc's; declared weak, it is null where the C library
// has none (musl), and trimming does nothing there.
extern int malloc_trim(size_t pad) __attribute__((weak));

static int folio_trim_c_heap(void) {
	if (malloc_trim) {
		return malloc_trim(0);
	}
	return 0;
}
*/
import "C"

// trimCHeap hands the C heap's free memory back to the system: SQLite
// allocates with malloc, and glibc keeps what a burst of connections
// freed in its per-thread arenas otherwise.
func trimCHeap() { C.folio_trim_c_heap() }
