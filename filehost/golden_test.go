package filehost

import (
	"flag"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"

	"folio/httpx/httpxtest"
)

// update rewrites the golden files under testdata/golden instead of
// comparing with them: go test ./filehost/ -run Golden -update.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// datePathRE is the {year}/{month}/ start of a key made by the default
// upload.path_pattern; the rest of the key (MD5 prefix, UUID) is fixed or
// numbered by httpxtest.Normalize.
var datePathRE = regexp.MustCompile(`\b\d{4}/\d{2}/`)

func TestGoldenResponsesKeepTheirShape(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	// A fixed image: the same bytes, hence the same MD5 and short link, on
	// every run and database.
	content := pngBytes(t, 16, 8)

	for _, tc := range []struct {
		file   string
		status int
		send   func() *httpxtest.Response
	}{
		{"upload.json", http.StatusOK, func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "Golden Image.png", content, "permission", "1")
		}},
		// Guest upload is off by default: the failure shape, with its code.
		{"upload-error.json", http.StatusForbidden, func() *httpxtest.Response {
			return e.c.Upload("/api/v1/public/upload", "file", "Golden Image.png", content)
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := tc.send().Expect(tc.status)
			body := httpxtest.Normalize(httpxtest.IndentJSON(t, r.Body), e.c.Base)
			body = datePathRE.ReplaceAll(body, []byte("{year}/{month}/"))
			httpxtest.Golden(t, filepath.Join("..", "testdata", "golden", tc.file), body, *update)
		})
	}
}
