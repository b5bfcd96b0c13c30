package filehost

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"folio/filehost/tus"
	"folio/httpx/httpxtest"
)

// tusCreate sends POST /api/v1/tus/ for an upload of length bytes with
// the given metadata; extra headers come in pairs and may replace any.
func tusCreate(c *httpxtest.Client, length int, md map[string]string, headers ...string) *httpxtest.Response {
	c.T.Helper()
	h := []string{tus.HeaderResumable, tus.Version, tus.HeaderUploadLength, strconv.Itoa(length)}
	if len(md) > 0 {
		h = append(h, tus.HeaderUploadMetadata, tus.EncodeMetadata(md))
	}
	return c.Do(http.MethodPost, "/api/v1/tus/", nil, append(h, headers...)...)
}

// tusPath is the path of the upload a creation answer's Location names.
func tusPath(t testing.TB, r *httpxtest.Response) string {
	t.Helper()
	loc := r.Location()
	i := strings.Index(loc, "/api/v1/tus/")
	if r.Status != http.StatusCreated || i < 0 {
		t.Fatalf("create: %d, Location %q: %s", r.Status, loc, r.Body)
	}
	return loc[i:]
}

// tusPatch sends the chunk at offset of the upload at path.
func tusPatch(c *httpxtest.Client, path string, offset int, chunk []byte, headers ...string) *httpxtest.Response {
	c.T.Helper()
	h := []string{tus.HeaderResumable, tus.Version, "Content-Type", tus.ContentType, tus.HeaderUploadOffset, strconv.Itoa(offset)}
	return c.Do(http.MethodPatch, path, chunk, append(h, headers...)...)
}

// tusHead asks the upload at path for its offset.
func tusHead(c *httpxtest.Client, path string) *httpxtest.Response {
	c.T.Helper()
	return c.Do(http.MethodHead, path, nil, tus.HeaderResumable, tus.Version)
}

// tusResult reads GET of a finished upload, in the upload shape.
func tusResult(t testing.TB, c *httpxtest.Client, path string) uploaded {
	t.Helper()
	env := c.Do(http.MethodGet, path, nil, tus.HeaderResumable, tus.Version).Expect(http.StatusOK).U()
	if !env.Status || env.Message != "success" {
		t.Fatalf("GET %s: %+v", path, env)
	}
	var u uploaded
	httpxtest.Into(t, env.Data, &u)
	return u
}

// tusSend uploads content called name in chunks of chunk bytes and
// returns the upload's path and its result.
func tusSend(t testing.TB, c *httpxtest.Client, name string, content []byte, chunk int, md ...string) (string, uploaded) {
	t.Helper()
	meta := map[string]string{"filename": name}
	for i := 0; i+1 < len(md); i += 2 {
		meta[md[i]] = md[i+1]
	}
	path := tusPath(t, tusCreate(c, len(content), meta))
	for off := 0; off < len(content); off += chunk {
		end := min(off+chunk, len(content))
		r := tusPatch(c, path, off, content[off:end]).Expect(http.StatusNoContent)
		if got := r.Header.Get(tus.HeaderUploadOffset); got != strconv.Itoa(end) {
			t.Fatalf("PATCH at %d: Upload-Offset %q, want %d", off, got, end)
		}
	}
	return path, tusResult(t, c, path)
}

// expectTusError checks a tus error answer in envelope A.
func expectTusError(t testing.TB, r *httpxtest.Response, status, code int) {
	t.Helper()
	r.Expect(status)
	if r.Header.Get(tus.HeaderResumable) != tus.Version {
		t.Fatalf("no Tus-Resumable on a %d", status)
	}
	if code != 0 {
		if a := r.A(); a.Code != code {
			t.Fatalf("code %d, want %d: %s", a.Code, code, r.Body)
		}
	}
}

// expectClean fails unless fsck finds nothing wrong.
func (e *testEnv) expectClean() {
	e.t.Helper()
	if r := e.check(CheckOptions{}); r.Problems != 0 {
		e.t.Fatalf("fsck: %+v", r)
	}
}
