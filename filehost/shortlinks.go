package filehost

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// linkTarget is what a short link needs to serve content: one indexed read.
type linkTarget struct {
	objectID string
	key      string
	md5      string
	mimetype string
	fileType string
	// width and height as the upload's header told them, before any
	// orientation is applied; 0 for other content.
	width, height int
	createdAt     time.Time
	name          string // the oldest live record's origin_name, for downloads
	// until is when the first of the live records expires (sqlstore
	// time), after which the name, who may read the link and whether
	// anything is left must be read again; 0: never.
	until int64
	// owners, when not nil, are the users whose records are all the link
	// has, every one restricted: only they may read it. Nil: anyone may.
	owners []string
	cached bool // came from s.links, so its bytes may be gone
	sent   sendings
}

// stale reports whether a record of the target has expired at now
// (sqlstore time), so that what it says must be read again.
func (t linkTarget) stale(now int64) bool { return t.until != 0 && now >= t.until }

// readable reports whether r may read t (docs/filehost.md#visibility):
// anyone, when one of its live records is public or unlisted; otherwise
// only a session or token of a user who owns one of them. Links open to
// anyone, nearly all, cost nothing more; the others check the credentials.
// Credentials that do not check out, for whatever reason, read nothing.
func (s *Service) readable(r *http.Request, t linkTarget) bool {
	if t.owners == nil {
		return true
	}
	idn, err := s.auth.Authenticate(r)
	return err == nil && idn != nil && slices.Contains(t.owners, idn.UserID)
}

// rounds are the ways targetByHash is asked for a link: remembered first,
// and from the database again only when a remembered target's bytes are
// gone (a target read fresh never goes round again). Where the counters
// do not see every process, a remembered target may have changed who
// reads it elsewhere: the database is asked at once
// (docs/design.md#caches-across-processes).
func rounds(local bool) [2]bool { return [2]bool{!local, true} }

// linkHash normalizes the {hash} of a short-link path; ok is false for a
// malformed one. The path may carry an extension ("{hash}.png").
func linkHash(h string) (string, bool) {
	if i := strings.IndexByte(h, '.'); i >= 0 {
		h = h[:i]
	}
	if len(h) < 8 || len(h) > 64 {
		return "", false
	}
	// One pass, and a new string only for upper case: every short link,
	// thumbnail and size asks.
	upper := false
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return "", false
		}
	}
	if upper {
		h = strings.ToLower(h)
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
