package filehost

import (
	"strings"
	"time"
)

// linkTarget is what a short link needs to serve content: one indexed read.
type linkTarget struct {
	objectID  string
	key       string
	md5       string
	mimetype  string
	fileType  string
	createdAt time.Time
	name      string // the oldest live record's origin_name, for downloads
	liveUntil int64  // when the last live record expires (sqlstore time); 0: never
	cached    bool   // came from s.links, so its bytes may be gone
	sent      sendings
}

// expired reports whether every record of the target has expired at now
// (sqlstore time).
func (t linkTarget) expired(now int64) bool { return t.liveUntil != 0 && now >= t.liveUntil }

// linkHash normalizes the {hash} of a short-link path; ok is false for a
// malformed one. The path may carry an extension ("{hash}.png").
func linkHash(h string) (string, bool) {
	if i := strings.IndexByte(h, '.'); i >= 0 {
		h = h[:i]
	}
	h = strings.ToLower(h)
	if len(h) < 8 || len(h) > 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	return h, true
}

// inlineSafe reports whether browsers render a type as passive media.
func inlineSafe(t string) bool {
	switch t {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/avif",
		"image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence",
		"image/x-icon", "image/vnd.microsoft.icon", "image/tiff":
		return true
	}
	return strings.HasPrefix(t, "video/") || strings.HasPrefix(t, "audio/")
}
