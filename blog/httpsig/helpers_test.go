package httpsig

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testKey reads a private key of testdata/: keys are made once, with
// openssl, so the tests need not spend seconds making 2048-bit keys.
func testKey(t testing.TB, name string) *rsa.PrivateKey {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParsePrivateKey(string(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

// fixedNow is the Date of the known-answer requests.
var fixedNow = time.Date(2022, time.June, 7, 20, 51, 35, 0, time.UTC)

// signRaw signs text with k as rsa-sha256 does, written apart from the
// package's signer so that a shape other servers send is built by hand.
func signRaw(t testing.TB, k *rsa.PrivateKey, text string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(text))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// inbox is what a receiving server sees: the request as Go's server
// hands it over (Host moved to r.Host, the body read), checked as an
// inbox checks it.
type inbox struct {
	pub      *rsa.PublicKey
	required []string
	now      time.Time
}

// received is what the inbox found: the parsed signature and the first
// error of the checks, nil when all passed.
type received struct {
	sig *Signature
	err error
}

// serve starts an httptest server running the checks and returns its URL
// and a channel with one result per request.
func (in inbox) serve(t *testing.T) (string, <-chan received) {
	t.Helper()
	results := make(chan received, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			results <- received{err: err}
			return
		}
		results <- in.check(r, body)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, results
}

func (in inbox) check(r *http.Request, body []byte) received {
	sig, err := Parse(r.Header)
	if err != nil {
		return received{err: err}
	}
	if err := sig.Verify(r, in.pub, in.required); err != nil {
		return received{sig: sig, err: err}
	}
	if r.Method == http.MethodPost {
		if err := CheckDigest(r.Header, body); err != nil {
			return received{sig: sig, err: err}
		}
	}
	if err := CheckDate(r.Header, in.now, 12*time.Hour); err != nil {
		return received{sig: sig, err: err}
	}
	return received{sig: sig}
}

// send sends r with body and waits for the inbox's result.
func send(t *testing.T, r *http.Request, body []byte, results <-chan received) received {
	t.Helper()
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return <-results
}
