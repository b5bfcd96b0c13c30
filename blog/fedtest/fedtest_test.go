package fedtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
)

func TestActorDocumentDecodesAsAPerson(t *testing.T) {
	s := New(t)
	a := s.Actor("alice")
	if s.Actor("alice") != a {
		t.Fatal("a second Actor call made a second actor")
	}
	resp, body := get(t, http.DefaultClient, a.ID)
	if ct := resp.Header.Get("Content-Type"); !activitypub.IsActivityContentType(ct) {
		t.Errorf("Content-Type = %q", ct)
	}
	doc, err := activitypub.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "id", doc.ID, s.URL+"/users/alice")
	eq(t, "type", doc.Type, "Person")
	eq(t, "preferredUsername", doc.PreferredUsername, "alice")
	eq(t, "name", doc.Name, "Name of alice")
	eq(t, "inbox", doc.Inbox, s.URL+"/users/alice/inbox")
	eq(t, "sharedInbox", doc.Endpoints.SharedInbox, s.URL+"/inbox")
	eq(t, "url", doc.URL.IRI(), s.URL+"/@alice")
	eq(t, "key id", doc.PublicKey.ID, a.KeyID)
	eq(t, "key owner", doc.PublicKey.Owner, a.ID)
	eq(t, "handle", a.Handle, "alice@"+s.Host)
	if doc.Icon == nil || doc.Icon.URL == "" {
		t.Error("no icon")
	}
	pub, err := httpsig.ParsePublicKey(doc.PublicKey.PublicKeyPem)
	if err != nil || !pub.Equal(&a.Key.PublicKey) {
		t.Errorf("the served key is not the actor's: %v", err)
	}
	if resp, _ := get(t, http.DefaultClient, s.URL+"/users/nobody"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown actor: status %d", resp.StatusCode)
	}

	old := a.Key
	a.RotateKey()
	_, body = get(t, http.DefaultClient, a.ID)
	doc, _ = activitypub.Decode(body)
	if pub, _ := httpsig.ParsePublicKey(doc.PublicKey.PublicKeyPem); pub == nil || pub.Equal(&old.PublicKey) || !pub.Equal(&a.Key.PublicKey) {
		t.Error("after RotateKey the document does not serve the new key")
	}
}

func TestWebFingerAnswersTheActorsHandle(t *testing.T) {
	s := New(t)
	a := s.Actor("bob")
	resp, body := get(t, http.DefaultClient, s.URL+"/.well-known/webfinger?resource=acct:"+a.Handle)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/jrd+json") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var jrd activitypub.JRD
	if err := json.Unmarshal(body, &jrd); err != nil {
		t.Fatal(err)
	}
	eq(t, "subject", jrd.Subject, "acct:bob@"+s.Host)
	var self string
	for _, l := range jrd.Links {
		if l.Rel == "self" && l.Type == activitypub.ContentType {
			self = l.Href
		}
	}
	eq(t, "self link", self, a.ID)
	for resource, want := range map[string]int{
		"acct:carol@" + s.Host:    http.StatusNotFound,
		"acct:bob@other.example":  http.StatusNotFound,
		"https://example.com/bob": http.StatusBadRequest,
	} {
		if resp, _ := get(t, http.DefaultClient, s.URL+"/.well-known/webfinger?resource="+resource); resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", resource, resp.StatusCode, want)
		}
	}
}

// A handler of the test, not of the package, checks Post's signature with
// httpsig alone against the key the actor's document serves.
func TestPostSignsAsTheActor(t *testing.T) {
	remote, blog := New(t), New(t)
	a := remote.Actor("alice")
	checked := make(chan error, 1)
	blog.Handle("POST /check", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		checked <- func() error {
			if r.Header.Get("Content-Type") != activitypub.ContentType {
				return errors.New("Content-Type " + r.Header.Get("Content-Type"))
			}
			sig, err := httpsig.Parse(r.Header)
			if err != nil {
				return err
			}
			if err := httpsig.CheckDigest(r.Header, body); err != nil {
				return err
			}
			if err := httpsig.CheckDate(r.Header, time.Now(), time.Minute); err != nil {
				return err
			}
			resp, err := http.Get(sig.KeyID)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			doc, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			actor, err := activitypub.Decode(doc)
			if err != nil {
				return err
			}
			pub, err := httpsig.ParsePublicKey(actor.PublicKey.PublicKeyPem)
			if err != nil {
				return err
			}
			return sig.Verify(r, pub, []string{"(request-target)", "host", "date", "digest"})
		}()
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "thanks")
	}))
	status, answer := a.Post(t, blog.URL+"/check", a.Follow(blog.URL+"/users/blog"))
	if status != http.StatusAccepted || answer != "thanks" {
		t.Fatalf("Post = %d %q", status, answer)
	}
	if err := <-checked; err != nil {
		t.Fatalf("the signature does not verify: %v", err)
	}
	eq(t, "requests of /check", blog.Requests("/check"), 1)
}

// blogSigner stands in for the blog: its key is served by an actor of
// another server, as the blog serves its own.
func blogSigner(t *testing.T) (*Actor, httpsig.Signer) {
	blog := New(t).Actor("blog")
	return blog, httpsig.Signer{KeyID: blog.KeyID, Key: blog.Key}
}

func TestReceivedRecordsAndVerifiesDeliveries(t *testing.T) {
	remote := New(t)
	remote.Actor("bob")
	blog, signer := blogSigner(t)
	send := func(path string, body []byte, change func(*http.Request)) int {
		r, err := http.NewRequest(http.MethodPost, remote.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := signer.Sign(r, body); err != nil {
			t.Fatal(err)
		}
		if change != nil {
			change(r)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	note, _ := json.Marshal(blog.CreateNote("", "", "<p>Hello</p>"))
	cases := []struct {
		name   string
		path   string
		change func(*http.Request)
		want   error
	}{
		{"a signed delivery to the shared inbox", "/inbox", nil, nil},
		{"a signed delivery to an actor's inbox", "/users/bob/inbox", nil, nil},
		{"no signature", "/inbox", func(r *http.Request) { r.Header.Del("Signature") }, httpsig.ErrNoSignature},
		{"a body that is not the one signed", "/inbox", func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"type":"Delete"}`))
			r.ContentLength = 17
		}, httpsig.ErrDigestMismatch},
		{"a Date changed after signing", "/inbox", func(r *http.Request) {
			r.Header.Set("Date", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		}, httpsig.ErrBadSignature},
		{"a stale Date", "/inbox", func(r *http.Request) {
			old := signer
			old.Now = func() time.Time { return time.Now().Add(-13 * time.Hour) }
			if err := old.Sign(r, note); err != nil {
				t.Fatal(err)
			}
		}, httpsig.ErrStale},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := send(c.path, note, c.change); got != http.StatusAccepted {
				t.Errorf("status %d", got)
			}
			got := remote.Received()
			if len(got) != i+1 {
				t.Fatalf("received %d, want %d", len(got), i+1)
			}
			d := got[i]
			eq(t, "path", d.Path, c.path)
			if !errors.Is(d.Verified, c.want) || (c.want == nil) != (d.Verified == nil) {
				t.Errorf("Verified = %v, want %v", d.Verified, c.want)
			}
			if c.want != httpsig.ErrDigestMismatch && (d.Type() != "Create" || d.Activity.Object.Object.Content != "<p>Hello</p>") {
				t.Errorf("activity %+v", d.Activity)
			}
		})
	}
	eq(t, "key fetches", blog.Server.Requests("/users/blog"), 1)
	eq(t, "creates", len(OfType(remote.Received(), "Create")), len(cases)-1)
}

func TestPostWithChangesWhatIsSent(t *testing.T) {
	remote, blog := New(t), New(t)
	a := remote.Actor("alice")
	other := New(t).Actor("mallory")
	inbox := blog.Actor("blog").Inbox
	cases := []struct {
		name string
		o    PostOptions
		want error
	}{
		{"as it is", PostOptions{}, nil},
		{"another key", PostOptions{Key: other.Key}, httpsig.ErrBadSignature},
		{"unsigned", PostOptions{Unsigned: true}, httpsig.ErrNoSignature},
		{"an old Date", PostOptions{Date: time.Now().Add(-24 * time.Hour)}, httpsig.ErrStale},
		{"another body", PostOptions{Body: []byte(`{"type":"Like"}`)}, httpsig.ErrDigestMismatch},
		{"no Digest", PostOptions{After: func(r *http.Request) { r.Header.Del("Digest") }}, httpsig.ErrNoDigest},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if status, _ := a.PostWith(t, inbox, a.Like(blog.URL+"/posts/x"), c.o); status != http.StatusAccepted {
				t.Fatalf("status %d", status)
			}
			d := blog.Received()[i]
			if !errors.Is(d.Verified, c.want) || (c.want == nil) != (d.Verified == nil) {
				t.Errorf("Verified = %v, want %v", d.Verified, c.want)
			}
		})
	}
}

func TestInboxStatusHangAndWaitFor(t *testing.T) {
	remote := New(t)
	a := New(t).Actor("alice")
	remote.SetInboxStatus(http.StatusGone)
	if status, _ := a.Post(t, remote.URL+"/inbox", a.DeleteActor()); status != http.StatusGone {
		t.Errorf("status %d, want 410", status)
	}
	remote.SetInboxStatus(http.StatusAccepted)

	remote.HangInbox(time.Hour)
	impatient := &http.Client{Timeout: 200 * time.Millisecond}
	r, _ := http.NewRequest(http.MethodPost, remote.URL+"/inbox", strings.NewReader(`{}`))
	if resp, err := impatient.Do(r); err == nil {
		resp.Body.Close()
		t.Fatalf("a hung inbox answered %d", resp.StatusCode)
	}
	remote.HangInbox(0)

	done := make(chan int)
	go func() {
		status, _ := a.Post(t, remote.URL+"/inbox", a.Announce(remote.URL+"/notes/1"))
		done <- status
	}()
	remote.WaitFor(t, "an Announce", func(ds []Delivery) bool { return len(OfType(ds, "Announce")) == 1 })
	eq(t, "status", <-done, http.StatusAccepted)
	eq(t, "inbox requests", remote.Requests("/inbox"), 3)
}

func TestMaxInFlightCountsHeldRequests(t *testing.T) {
	remote := New(t)
	a := New(t).Actor("alice")
	eq(t, "in flight before any request", remote.MaxInFlight(), 0)
	a.Post(t, remote.URL+"/inbox", a.Like(remote.URL+"/notes/1"))
	eq(t, "in flight after one answered request", remote.MaxInFlight(), 1)

	remote.HangInbox(time.Hour)
	impatient := &http.Client{Timeout: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _ := http.NewRequestWithContext(ctx, http.MethodPost, remote.URL+"/inbox", strings.NewReader(`{}`))
			if resp, err := impatient.Do(r); err == nil {
				resp.Body.Close()
			}
		}()
	}
	remote.WaitFor(t, "three held requests", func(ds []Delivery) bool { return len(ds) == 4 })
	cancel()
	wg.Wait()
	eq(t, "in flight with three held", remote.MaxInFlight(), 3)
}

func TestTLSServerIsReachedWithItsRootCAs(t *testing.T) {
	s := NewTLS(t)
	a := s.Actor("alice")
	if !strings.HasPrefix(a.ID, "https://") {
		t.Fatalf("id %s", a.ID)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(s)}}
	if resp, _ := get(t, client, a.ID); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if New(t).RootCAs() != nil {
		t.Error("a plain server has root CAs")
	}
}

func TestRequireSignedFetchRefusesUnsignedGets(t *testing.T) {
	remote := New(t)
	a := remote.Actor("alice")
	remote.ServeJSON("/notes/1", map[string]any{"id": remote.URL + "/notes/1", "type": "Note", "attributedTo": a.ID})
	_, signer := blogSigner(t)
	fetch := func(url string, sign bool) int {
		r, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sign {
			if err := signer.Sign(r, nil); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	webfinger := remote.URL + "/.well-known/webfinger?resource=acct:" + a.Handle
	eq(t, "an unsigned GET of a note before", fetch(remote.URL+"/notes/1", false), http.StatusOK)
	remote.RequireSignedFetch(true)
	for _, c := range []struct {
		name string
		url  string
		sign bool
		want int
	}{
		{"an unsigned GET of the actor", a.ID, false, http.StatusUnauthorized},
		{"an unsigned GET of a note", remote.URL + "/notes/1", false, http.StatusUnauthorized},
		{"a signed GET of the actor", a.ID, true, http.StatusOK},
		{"a signed GET of a note", remote.URL + "/notes/1", true, http.StatusOK},
		{"an unsigned WebFinger", webfinger, false, http.StatusOK},
	} {
		eq(t, c.name, fetch(c.url, c.sign), c.want)
	}
	if got := remote.Received(); len(got) != 0 {
		t.Errorf("fetches were taken for deliveries: %d", len(got))
	}
}
