package filehost

import (
	"net/http"
	"testing"

	"folio/filehost/tus"
)

func TestTusChunkedUploadAnswersAsAnUpload(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *testEnv) {
		_, alice := e.newUser("alice", 0)
		content := pngBytes(t, 40, 30)
		path, got := tusSend(t, alice, "a.png", content, 100)
		want := mustUpload(t, alice, "b.png", content)
		if got.MD5 != want.MD5 || got.Size != want.Size || got.Mimetype != "image/png" || got.OriginName != "a.png" || got.Links.URL == "" {
			t.Fatalf("tus result %+v, upload %+v", got, want)
		}
		r := tusHead(alice, path).Expect(http.StatusOK)
		if r.Header.Get(tus.HeaderUploadOffset) != r.Header.Get(tus.HeaderUploadLength) || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("HEAD after finish: %v", r.Header)
		}
		e.expectClean()
		if n := e.count("SELECT COUNT(*) FROM tus_parts"); n != 0 {
			t.Fatalf("%d parts left", n)
		}
	})
}
