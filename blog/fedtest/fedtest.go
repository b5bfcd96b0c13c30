// Package fedtest is a stand-in fediverse server for the blog's federation
// tests: actors with their own keys, WebFinger, inboxes that record and
// verify what the blog delivers, and signed activities posted to the blog
// (docs/federation.md). Only tests import it.
//
// A Server is one remote server on loopback. Its actors sign with RSA keys
// made for the server: the actors of one server share its key until
// Actor.RotateKey gives one a fresh key; actors of two servers never share
// one. Every request to an inbox (the shared one and each actor's) is kept,
// in order, with the verification of its signature as a fediverse server
// makes it (docs/federation.md#signatures).
package fedtest

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
)

// Server is one remote server on loopback (httptest), plain http unless
// made by NewTLS.
type Server struct {
	URL  string // http://127.0.0.1:port (https:// for NewTLS)
	Host string // 127.0.0.1:port

	// Client sends the server's own requests: Post, and the fetches of the
	// keys that sign deliveries. Nil is a plain client with a 30 s timeout;
	// set it before use (e.g. to trust the blog's test certificate).
	Client *http.Client
	// Wait bounds WaitFor; zero is 10 s.
	Wait time.Duration

	t      testing.TB
	srv    *httptest.Server
	mux    *http.ServeMux
	closed chan struct{} // closed at cleanup: hanging inboxes answer

	mu       sync.Mutex
	key      *rsa.PrivateKey // the actors' shared key, made at the first Actor
	actors   map[string]*Actor
	requests map[string]int
	received []Delivery
	keys     map[string]*rsa.PublicKey // the keys of deliveries, by keyId
	status   int
	hang     time.Duration
	// inFlight is how many inbox requests are being answered now;
	// maxInFlight the most there ever were at once.
	inFlight, maxInFlight int
	// signedFetch: GETs must be signed, as on a server with authorized fetch.
	signedFetch bool
	now         func() time.Time
}

// New starts a plain http server, closed when the test ends.
func New(t testing.TB) *Server { return start(t, false) }

// NewTLS starts an https server, closed when the test ends; RootCAs
// trusts its certificate.
func NewTLS(t testing.TB) *Server { return start(t, true) }

func start(t testing.TB, tls bool) *Server {
	t.Helper()
	s := &Server{
		t:        t,
		mux:      http.NewServeMux(),
		closed:   make(chan struct{}),
		actors:   map[string]*Actor{},
		requests: map[string]int{},
		keys:     map[string]*rsa.PublicKey{},
		status:   http.StatusAccepted,
		now:      time.Now,
	}
	s.mux.HandleFunc("GET /users/{name}", s.serveActor)
	s.mux.HandleFunc("POST /users/{name}/inbox", s.serveInbox)
	s.mux.HandleFunc("POST /inbox", s.serveInbox)
	s.mux.HandleFunc("GET /.well-known/webfinger", s.serveWebFinger)
	count := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		signed := s.signedFetch
		s.mu.Unlock()
		if signed && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			if _, err := s.verify(r, nil); err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized)
				return
			}
		}
		s.mux.ServeHTTP(w, r)
	})
	if tls {
		s.srv = httptest.NewTLSServer(count)
	} else {
		s.srv = httptest.NewServer(count)
	}
	s.URL = s.srv.URL
	s.Host = strings.TrimPrefix(strings.TrimPrefix(s.URL, "https://"), "http://")
	t.Cleanup(func() {
		close(s.closed)
		s.srv.Close()
	})
	return s
}

// RootCAs is a pool that trusts the server's certificate, for the blog's
// client to reach a NewTLS server; nil for a plain one.
func (s *Server) RootCAs() *x509.CertPool {
	if s.srv.TLS == nil {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	return pool
}

// Handle adds a handler, e.g. a Note document at a path. Give patterns a
// method ("GET /notes/1") so that none clashes with the server's own
// "GET /users/{name}".
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Requests is how many requests path has had, whatever their method.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// ServeJSON serves v (JSON-marshalable, or []byte as it is) at path as
// application/activity+json, e.g. a Note the blog fetches.
func (s *Server) ServeJSON(path string, v any) {
	s.mux.HandleFunc(http.MethodGet+" "+path, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, activitypub.ContentType+"; charset=utf-8", v)
	})
}

// RequireSignedFetch makes every GET but WebFinger's need a signature
// that verifies (401 otherwise), as a server with authorized fetch does,
// or lets them through again.
func (s *Server) RequireSignedFetch(on bool) {
	s.mu.Lock()
	s.signedFetch = on
	s.mu.Unlock()
}

// SetNow sets the clock that bounds the Date of deliveries (the blog's
// clock when a test moves it); nil is time.Now.
func (s *Server) SetNow(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

func (s *Server) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// Actor is an account on a Server.
type Actor struct {
	ID          string // {URL}/users/{name}
	KeyID       string // ID + "#main-key"
	Inbox       string // ID + "/inbox"
	SharedInbox string // {URL}/inbox
	Handle      string // name@Host
	Name        string // "Name of {name}"
	URL         string // {URL}/@{name}, its profile page
	Username    string // name
	// Key signs as the actor: the server's key, shared by its actors until
	// RotateKey gives this one its own.
	Key    *rsa.PrivateKey
	Server *Server

	mu   sync.Mutex
	seen int // activities made, for their ids
}

// Actor returns the actor called name, made at the first call. The name
// must be a path segment.
func (s *Server) Actor(name string) *Actor {
	s.t.Helper()
	if name == "" || strings.ContainsAny(name, "/?#@ %") {
		s.t.Fatalf("fedtest: %q cannot be an actor's name", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.actors[name]; a != nil {
		return a
	}
	if s.key == nil {
		// Made lazily and shared by the server's actors: a key takes
		// up to a few tenths of a second under the race detector.
		s.key = generate(s.t)
	}
	id := s.URL + "/users/" + name
	a := &Actor{
		ID: id, KeyID: id + "#main-key", Inbox: id + "/inbox", SharedInbox: s.URL + "/inbox",
		Handle: name + "@" + s.Host, Name: "Name of " + name, URL: s.URL + "/@" + name,
		Username: name, Key: s.key, Server: s,
	}
	s.actors[name] = a
	return a
}

// RotateKey gives the actor a fresh key, which its document serves from
// now on; what was signed with the old one no longer verifies against it.
func (a *Actor) RotateKey() {
	k := generate(a.Server.t)
	a.Server.mu.Lock()
	a.Key = k
	a.Server.mu.Unlock()
}

func generate(t testing.TB) *rsa.PrivateKey {
	k, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatalf("fedtest: making a key: %v", err)
	}
	return k
}

// Document is the actor's Person document as the server serves it.
func (a *Actor) Document() *activitypub.Object {
	a.Server.mu.Lock()
	pub := &a.Key.PublicKey
	a.Server.mu.Unlock()
	return &activitypub.Object{
		Context:           []any{activitypub.ActivityStreamsContext, activitypub.SecurityContext},
		ID:                a.ID,
		Type:              "Person",
		PreferredUsername: a.Username,
		Name:              a.Name,
		Summary:           "<p>A test account.</p>",
		URL:               activitypub.Ref{ID: a.URL},
		Inbox:             a.Inbox,
		Outbox:            a.ID + "/outbox",
		Followers:         a.ID + "/followers",
		Following:         a.ID + "/following",
		Endpoints:         &activitypub.Endpoints{SharedInbox: a.SharedInbox},
		Icon:              &activitypub.Image{Type: "Image", MediaType: "image/png", URL: a.Server.URL + "/avatars/" + a.Username + ".png"},
		PublicKey:         &activitypub.PublicKey{ID: a.KeyID, Owner: a.ID, PublicKeyPem: httpsig.MarshalPublicKey(pub)},
	}
}

func (s *Server) serveActor(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a := s.actors[r.PathValue("name")]
	s.mu.Unlock()
	if a == nil {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, activitypub.ContentType+"; charset=utf-8", a.Document())
}

func (s *Server) serveWebFinger(w http.ResponseWriter, r *http.Request) {
	user, host, err := activitypub.ParseAcct(r.URL.Query().Get("resource"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	a := s.actors[user]
	s.mu.Unlock()
	if a == nil || host != strings.ToLower(s.Host) {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, "application/jrd+json; charset=utf-8", activitypub.JRD{
		Subject: "acct:" + a.Handle,
		Aliases: []string{a.URL, a.ID},
		Links: []activitypub.Link{
			{Rel: "http://webfinger.net/rel/profile-page", Type: "text/html", Href: a.URL},
			{Rel: "self", Type: activitypub.ContentType, Href: a.ID},
		},
	})
}

func writeJSON(w http.ResponseWriter, contentType string, v any) {
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}
