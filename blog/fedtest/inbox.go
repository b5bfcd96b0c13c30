package fedtest

import (
	"crypto/rsa"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
)

// Delivery is one request an inbox of the server got.
type Delivery struct {
	Path     string // /inbox or /users/{name}/inbox
	Header   http.Header
	Body     []byte
	Activity *activitypub.Object // nil when the body is no ActivityStreams object
	KeyID    string              // the signature's keyId, "" when unsigned or unreadable
	// Verified is nil when the signature verified as a fediverse server
	// checks it, else why not (an httpsig error, possibly wrapped).
	Verified error
}

// Type is the activity's type, "" when the body was no activity.
func (d Delivery) Type() string {
	if d.Activity == nil {
		return ""
	}
	return d.Activity.Type
}

// OfType returns the deliveries whose activity has type typ, in order.
func OfType(ds []Delivery, typ string) []Delivery {
	var out []Delivery
	for _, d := range ds {
		if d.Type() == typ {
			out = append(out, d)
		}
	}
	return out
}

// Received returns every request the server's inboxes got, in order.
func (s *Server) Received() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.received...)
}

// WaitFor waits until pred holds over Received(), for at most s.Wait
// (10 s when zero), and fails the test, naming what, if it never does.
func (s *Server) WaitFor(t testing.TB, what string, pred func([]Delivery) bool) {
	t.Helper()
	wait := s.Wait
	if wait == 0 {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		got := s.Received()
		if pred(got) {
			return
		}
		if time.Now().After(deadline) {
			var lines []string
			for _, d := range got {
				lines = append(lines, fmt.Sprintf("  %s %s (verified: %v)", d.Path, d.Type(), d.Verified))
			}
			t.Fatalf("fedtest: waited %s for %s; %s received %d:\n%s", wait, what, s.Host, len(got), strings.Join(lines, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SetInboxStatus makes the inboxes answer code from now on (202 at first).
func (s *Server) SetInboxStatus(code int) {
	s.mu.Lock()
	s.status = code
	s.mu.Unlock()
}

// HangInbox makes the inboxes hold each request d before answering, as a
// dead or slow server does; 0 answers at once again. A held request ends
// early when its client gives up or the test ends.
func (s *Server) HangInbox(d time.Duration) {
	s.mu.Lock()
	s.hang = d
	s.mu.Unlock()
}

// MaxInFlight is the most inbox requests the server was answering at
// once (a held one counts until it is answered): how many deliveries a
// sender runs in parallel to one host.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serveInbox(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	d := Delivery{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	d.Activity, _ = activitypub.Decode(body)
	d.KeyID, d.Verified = s.verify(r, body)
	s.mu.Lock()
	s.received = append(s.received, d)
	status, hang := s.status, s.hang
	s.mu.Unlock()
	if hang > 0 {
		timer := time.NewTimer(hang)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	w.WriteHeader(status)
}

// verify checks a delivery as the blog's peers do (docs/federation.md#signatures):
// a readable signature covering (request-target), host, date and digest,
// a Date within 12 hours, a matching SHA-256 Digest, and the signature
// verified with the key its keyId's document publishes. A GET (body nil)
// has no Digest to check or cover.
func (s *Server) verify(r *http.Request, body []byte) (string, error) {
	sig, err := httpsig.Parse(r.Header)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	now := s.now()
	s.mu.Unlock()
	if err := httpsig.CheckDate(r.Header, now, 12*time.Hour); err != nil {
		return sig.KeyID, err
	}
	required := []string{"(request-target)", "host", "date"}
	if r.Method != http.MethodGet {
		if err := httpsig.CheckDigest(r.Header, body); err != nil {
			return sig.KeyID, err
		}
		required = append(required, "digest")
	}
	key, err := s.publicKey(sig.KeyID)
	if err != nil {
		return sig.KeyID, err
	}
	return sig.KeyID, sig.Verify(r, key, required)
}

// publicKey fetches the document keyID names (the signing actor's, the
// fragment being no part of the request) and reads its publicKey; keys
// are kept by keyId for the life of the server.
func (s *Server) publicKey(keyID string) (*rsa.PublicKey, error) {
	s.mu.Lock()
	key := s.keys[keyID]
	s.mu.Unlock()
	if key != nil {
		return key, nil
	}
	req, err := http.NewRequest(http.MethodGet, keyID, nil)
	if err != nil {
		return nil, fmt.Errorf("fedtest: the keyId %q: %w", keyID, err)
	}
	req.Header.Set("Accept", activitypub.ContentType)
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("fedtest: fetching the key %s: %w", keyID, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fedtest: fetching the key %s: status %d, %v", keyID, resp.StatusCode, err)
	}
	doc, err := activitypub.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("fedtest: the key's document %s: %w", keyID, err)
	}
	if doc.PublicKey == nil || doc.PublicKey.ID != keyID {
		return nil, fmt.Errorf("fedtest: the document of %s publishes no key of that id", keyID)
	}
	key, err = httpsig.ParsePublicKey(doc.PublicKey.PublicKeyPem)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.keys[keyID] = key
	s.mu.Unlock()
	return key, nil
}
