package filehost

import "folio/httpx"

// Metrics are the file host's counters (docs/observability.md). A nil
// counter counts nothing, so the zero Metrics turns them off.
type Metrics struct {
	// UploadBytes counts the bytes of every saved upload, as stored (after
	// metadata stripping), deduplicated ones included.
	UploadBytes *httpx.Counter
	// Uploads by outcome: a new stored object, a record sharing an
	// identical stored object, or a request refused or failed.
	UploadsStored, UploadsDeduplicated, UploadsFailed *httpx.Counter
	// DedupSavedBytes counts the bytes not written thanks to dedup.
	DedupSavedBytes *httpx.Counter
	// ServedBytes counts the file bytes sent by short links, thumbnails
	// and share links, from memory or from the store.
	ServedBytes *httpx.Counter
}

// deduplicated counts an upload that shares a stored object.
func (m *Metrics) deduplicated(size int64) {
	m.UploadsDeduplicated.Inc()
	m.UploadBytes.Add(uint64(size))
	m.DedupSavedBytes.Add(uint64(size))
}

// stored counts an upload stored as a new object.
func (m *Metrics) stored(size int64) {
	m.UploadsStored.Inc()
	m.UploadBytes.Add(uint64(size))
}
