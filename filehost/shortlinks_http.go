package filehost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"folio/httpx"
	"folio/storage"
)

// shortLink serves /{prefix}/{hash}: i, v and a only for their file type,
// f for every type as an attachment.
func (s *Service) shortLink(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.overMissLimit(w, r) {
			return
		}
		h, ok := linkHash(r.PathValue("hash"))
		if !ok {
			s.notFoundLink(w, r)
			return
		}
		// Only /i/ has sizes (docs/filehost.md#sizes).
		width, badWidth := 0, error(nil)
		if prefix == "i" && r.URL.RawQuery != "" {
			width, badWidth = requestedWidth(r.URL.RawQuery)
		}
		v, local := s.fileChanges()
	lookup:
		for _, fresh := range rounds(local) {
			t, ok, err := s.targetByHash(r.Context(), h, fresh, v)
			if err != nil {
				s.serverError(w, r, err)
				return
			}
			// A link its reader may not read is a miss, answered as one.
			if !ok || (prefix != "f" && linkPrefix(t.fileType) != prefix) || !s.readable(r, t) {
				break
			}
			if badWidth != nil {
				s.badWidth(w, r)
				return
			}
			if t.owners != nil {
				keepPrivate(w)
			}
			if width > 0 && width < max(t.width, t.height) {
				switch s.serveVariant(w, r, t, width, v, local) {
				case variantServed:
					return
				case variantRetry:
					continue
				case variantMiss:
					break lookup
				}
			}
			sv := t.sent.inline
			if prefix == "f" {
				sv = t.sent.attachment
			}
			if s.presign != nil {
				s.redirectToBytes(w, r, t.key, sv.mimetype, strings.Join(sv.hdr.disposition, ""))
				return
			}
			if s.accel(w, r, t.key, sv) {
				return
			}
			body, f, err := s.openContent(r.Context(), t.key, v, local)
			if errors.Is(err, fs.ErrNotExist) && t.cached {
				continue
			}
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				s.serverError(w, r, err)
				return
			}
			if f == nil {
				s.serveBytes(w, r, body, sv)
				return
			}
			defer f.Close()
			w.Header()["Content-Disposition"] = sv.hdr.disposition
			s.serveContent(w, r, f, sv.mimetype, sv.etag, sv.modified)
			return
		}
		s.notFoundLink(w, r)
	})
}

// keepPrivate keeps restricted content out of shared caches, and makes
// the owner's browser ask again each time: the link may close.
func keepPrivate(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "private, no-cache")
}

// openContent returns the stored content under key: as bytes when they are
// kept, or small enough to keep, and the counters see every process (so
// that a deletion anywhere empties the cache); else the open object, for
// sendfile. v is the files counter's value, loaded before the target was
// resolved.
func (s *Service) openContent(ctx context.Context, key string, v uint64, local bool) ([]byte, storage.Object, error) {
	if local {
		if b, ok := s.links.bytesOf(key, v); ok {
			return b, nil, nil
		}
	}
	f, err := s.store.Open(ctx, key)
	if err != nil || !local {
		return nil, f, err
	}
	b, ok, err := readSmall(f)
	if err != nil || !ok {
		return nil, f, err
	}
	s.links.keep(key, b, v)
	return b, nil, nil
}

// readSmall reads f whole, and closes it, when it is small enough to keep;
// else it leaves f open at its start.
func readSmall(f storage.Object) ([]byte, bool, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	if st.Size() > contentCacheMax {
		return nil, false, nil
	}
	defer f.Close()
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// contentHeaders sets the headers of served content. Anything that is not
// a plain raster image, video or audio is sandboxed, so content uploaded
// by anyone can never run script in the site's origin.
func contentHeaders(h http.Header, mimetype, etag string) {
	h.Set("Content-Type", mimetype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", etag)
	if h.Get("Cache-Control") == "" { // a share link's bytes set their own
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	}
	if !inlineSafe(mimetype) {
		h.Set("Content-Security-Policy", "sandbox")
	}
}

// serveContent sends stored content with validators and ranges through
// http.ServeContent (sendfile for the local store), counting the bytes
// sent.
func (s *Service) serveContent(w http.ResponseWriter, r *http.Request, f io.ReadSeeker, mimetype, etag string, modified time.Time) {
	contentHeaders(w.Header(), mimetype, etag)
	http.ServeContent(httpx.CountBytes(w, s.metrics.ServedBytes), r, "", modified, f)
}

// sending is how some stored content goes out: its validators, and its
// header values made once, when its link target is read, since a hot
// link is sent many times. Value slices of length 1 are never appended to
// in place, so responses may share them.
type sending struct {
	mimetype, etag string
	modified       time.Time
	hdr            struct{ ctype, etag, lastMod, disposition []string }
	sandbox        bool
	// key is where a thumbnail's or an image size's bytes are stored
	// (the original's is its target's key).
	key string
	// length is the Content-Length value of the bytes last sent, made
	// again only when their length differs.
	length atomic.Pointer[lengthValue]
	// accel is the file and X-Accel-Redirect value of the key last
	// offloaded (storage.local.accel_redirect).
	accel atomic.Pointer[accelFile]
}

type lengthValue struct {
	n int
	v []string
}

// contentLength is the Content-Length value of n bytes sent as sv.
func (sv *sending) contentLength(n int) []string {
	if l := sv.length.Load(); l != nil && l.n == n {
		return l.v
	}
	l := &lengthValue{n: n, v: []string{strconv.Itoa(n)}}
	sv.length.Store(l)
	return l.v
}

// fixedValues are the header values every sending of served content
// shares, made once: value slices of length 1 are never appended to in
// place.
type fixedValues struct{ nosniff, immutable, acceptRanges, sandbox []string }

func newFixedValues() *fixedValues {
	return &fixedValues{
		nosniff:      []string{"nosniff"},
		immutable:    []string{"public, max-age=31536000, immutable"},
		acceptRanges: []string{"bytes"},
		sandbox:      []string{"sandbox"},
	}
}

func newSending(mimetype, etag string, modified time.Time, disposition string) *sending {
	sv := &sending{mimetype: mimetype, etag: etag, modified: modified, sandbox: !inlineSafe(mimetype)}
	sv.hdr.ctype = []string{mimetype}
	sv.hdr.etag = []string{etag}
	if !modified.IsZero() && !modified.Equal(time.Unix(0, 0)) {
		sv.hdr.lastMod = []string{modified.UTC().Format(http.TimeFormat)}
	}
	if disposition != "" {
		sv.hdr.disposition = []string{disposition}
	}
	return sv
}

// sendings are a link target's ways out: inline (/i/, /v/, /a/),
// attachment (/f/), its thumbnail (/t/) and its sizes (/i/?w=), the
// sizes made on their first request, one per entry of variantWidths.
type sendings struct {
	inline, attachment, thumb *sending
	sizes                     []atomic.Pointer[sending]
}

func newSendings(t linkTarget) sendings {
	etag := `"` + t.md5 + `"`
	isJPEG := thumbJPEG(t.mimetype)
	thumb := newSending(thumbType(isJPEG), `"t-`+t.md5+`"`, t.createdAt, "")
	thumb.key = thumbKey(t.objectID, isJPEG)
	return sendings{
		inline:     newSending(t.mimetype, etag, t.createdAt, contentDisposition("inline", t.name)),
		attachment: newSending(t.mimetype, etag, t.createdAt, contentDisposition("attachment", t.name)),
		thumb:      thumb,
		sizes:      make([]atomic.Pointer[sending], len(variantWidths)),
	}
}

// size is the sending of t's image size of width n, one of
// variantWidths.
func (t linkTarget) size(n int) *sending {
	i := slices.Index(variantWidths, n)
	if i < 0 || i >= len(t.sent.sizes) { // a target made without sendings
		return newSize(t, n)
	}
	if sv := t.sent.sizes[i].Load(); sv != nil {
		return sv
	}
	sv := newSize(t, n)
	t.sent.sizes[i].Store(sv)
	return sv
}

func newSize(t linkTarget, n int) *sending {
	isJPEG := thumbJPEG(t.mimetype)
	sv := newSending(thumbType(isJPEG), `"w`+strconv.Itoa(n)+`-`+t.md5+`"`, t.createdAt, "")
	sv.key = variantKey(t.objectID, n, isJPEG)
	return sv
}

// serveBytes sends content held in memory. A plain GET or HEAD, with or
// without If-None-Match, is answered here, the body in one Write (the
// headers share the first packet); ranges and the other conditions, rare
// from browsers and image clients, go through http.ServeContent, which
// answers them as it does for files.
func (s *Service) serveBytes(w http.ResponseWriter, r *http.Request, b []byte, sv *sending) {
	h := w.Header()
	if sv.hdr.disposition != nil {
		h["Content-Disposition"] = sv.hdr.disposition
	}
	for _, k := range [...]string{"Range", "If-Range", "If-Match", "If-Unmodified-Since", "If-Modified-Since"} {
		if _, ok := r.Header[k]; ok {
			s.serveContent(w, r, bytes.NewReader(b), sv.mimetype, sv.etag, sv.modified)
			return
		}
	}
	s.sendingHeaders(h, sv)
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagListed(strings.Join(inm, ","), sv.etag) {
		delete(h, "Content-Type") // as http.ServeContent's 304
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if sv.hdr.lastMod != nil {
		h["Last-Modified"] = sv.hdr.lastMod
	}
	h["Accept-Ranges"] = s.fixed.acceptRanges
	h["Content-Length"] = sv.contentLength(len(b))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		n, _ := w.Write(b)
		s.metrics.ServedBytes.Add(uint64(n))
	}
}

// sendingHeaders sets the headers every answer of sv's content carries,
// contentHeaders' own, from the values made once.
func (s *Service) sendingHeaders(h http.Header, sv *sending) {
	h["Content-Type"] = sv.hdr.ctype
	h["X-Content-Type-Options"] = s.fixed.nosniff
	h["Etag"] = sv.hdr.etag
	if _, ok := h["Cache-Control"]; !ok { // a share link's bytes set their own
		h["Cache-Control"] = s.fixed.immutable
	}
	if sv.sandbox {
		h["Content-Security-Policy"] = s.fixed.sandbox
	}
}

// etagListed reports whether an If-None-Match list names etag, by weak
// comparison (RFC 9110 13.1.2).
func etagListed(list, etag string) bool {
	etag = strings.TrimPrefix(etag, "W/")
	for t := range strings.SplitSeq(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

func (s *Service) serverError(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.FileAPI.Error(w, r, httpx.Internal(fmt.Errorf("serve short link: %w", err)))
}

// contentDisposition names served content after the name its uploader
// gave it (RFC 6266): filename* carries the name in UTF-8 (RFC 8187) and
// filename an ASCII stand-in for clients that read only that.
func contentDisposition(kind, name string) string {
	var fallback, encoded strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			fallback.WriteByte('_')
		} else {
			fallback.WriteRune(r)
		}
	}
	const attrChar = "!#$&+-.^_`|~"
	for _, b := range []byte(name) {
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte(attrChar, b) >= 0 {
			encoded.WriteByte(b)
		} else {
			fmt.Fprintf(&encoded, "%%%02X", b)
		}
	}
	return kind + `; filename="` + fallback.String() + `"; filename*=UTF-8''` + encoded.String()
}
