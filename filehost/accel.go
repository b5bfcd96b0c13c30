package filehost

import (
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// filePaths is a store whose content lives in files another process on
// the host can read (storage.Local).
type filePaths interface {
	Path(key string) (string, error)
}

// accelerator hands the sending of stored files to the proxy in front:
// Folio answers with every header of the response and X-Accel-Redirect
// naming the file under the proxy's internal location, and nginx sends the
// bytes (storage.local.accel_redirect, docs/operating.md#nginx-sends-the-files).
type accelerator struct {
	prefix string // the internal location, "/" at both ends
	files  filePaths
}

// newAccelerator is the accelerator of prefix over store, or nil when
// prefix is empty or the store keeps no files.
func newAccelerator(prefix string, store any) *accelerator {
	files, ok := store.(filePaths)
	if prefix == "" || !ok {
		return nil
	}
	return &accelerator{prefix: prefix, files: files}
}

// accel answers r with X-Accel-Redirect to the file of key, with the
// headers serveContent would set for sv, when nginx answers it exactly as
// Folio would: a GET of the whole file or of one satisfiable byte range,
// with no condition left for nginx to judge (the location turns off its
// own ETag and If-Modified-Since, so it never answers 304 or 412 itself).
// Everything else (HEAD, 304s, If-Match, If-Range, several or bad ranges,
// a missing file) is left to the caller: accel reports false and has
// written nothing.
func (s *Service) accel(w http.ResponseWriter, r *http.Request, key string, sv *sending) bool {
	a := s.accelerator
	if a == nil || r.Method != http.MethodGet {
		return false
	}
	in := r.Header
	for _, k := range [...]string{"If-Match", "If-Unmodified-Since", "If-Range"} {
		if _, ok := in[k]; ok {
			return false
		}
	}
	// As http.ServeContent: If-None-Match, when sent, decides alone.
	if inm, ok := in["If-None-Match"]; ok {
		if etagListed(strings.Join(inm, ","), sv.etag) {
			return false
		}
	} else if _, ok := in["If-Modified-Since"]; ok {
		return false
	}
	f := sv.accel.Load()
	if f == nil || f.key != key {
		path, err := a.files.Path(key)
		if err != nil {
			return false
		}
		f = &accelFile{key: key, path: path, redirect: []string{a.prefix + (&url.URL{Path: key}).EscapedPath()}}
		sv.accel.Store(f)
	}
	st, err := os.Stat(f.path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	n := st.Size()
	if rg, ok := in["Range"]; ok {
		if len(rg) != 1 {
			return false
		}
		if n, ok = oneRange(rg[0], n); !ok {
			return false
		}
	}
	h := w.Header()
	if _, ok := in["Range"]; ok {
		// nginx keeps this header of Folio's and adds its own to a 200
		// only, as http.ServeContent sends it with a 206 too.
		h["Accept-Ranges"] = []string{"bytes"}
	}
	if sv.hdr.disposition != nil {
		h["Content-Disposition"] = sv.hdr.disposition
	}
	s.sendingHeaders(h, sv)
	if sv.hdr.lastMod != nil {
		h["Last-Modified"] = sv.hdr.lastMod
	}
	h["X-Accel-Redirect"] = f.redirect
	w.WriteHeader(http.StatusOK)
	// The bytes nginx is about to send.
	s.metrics.ServedBytes.Add(uint64(n))
	return true
}

// accelFile is the file of a sending's key and its X-Accel-Redirect value,
// made on its first offload and kept with the sending, as its other header
// values are: the key of a link target's sending does not change.
type accelFile struct {
	key, path string
	redirect  []string
}

// oneRange returns the length of the one byte range of header in content
// of size bytes, when http.ServeContent and nginx both answer it with the
// same 206: "bytes=a-b", "bytes=a-" or "bytes=-n" in plain digits, a below
// size, b not below a, n above 0. Anything else they may answer
// differently (several ranges, 416, odd syntax), so Folio answers it.
func oneRange(header string, size int64) (int64, bool) {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok || size <= 0 {
		return 0, false
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok || !digits(first) && first != "" || !digits(last) && last != "" || first == "" && last == "" {
		return 0, false
	}
	if first == "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 {
			return 0, false
		}
		return min(n, size), true
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start >= size {
		return 0, false
	}
	end := size - 1
	if last != "" {
		e, err := strconv.ParseInt(last, 10, 64)
		if err != nil || e < start {
			return 0, false
		}
		end = min(e, end)
	}
	return end - start + 1, true
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
