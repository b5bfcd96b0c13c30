package fedtest

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"folio/blog/activitypub"
	"folio/blog/httpsig"
)

// PostOptions changes how PostWith signs and sends an activity.
type PostOptions struct {
	Key         *rsa.PrivateKey       // sign with this key instead of the actor's
	KeyID       string                // name this keyId instead of the actor's
	Unsigned    bool                  // send no Signature (Date and Digest are still set)
	Date        time.Time             // sign with this Date instead of now
	ContentType string                // instead of application/activity+json
	Before      func(r *http.Request) // changes the request before it is signed
	After       func(r *http.Request) // changes the request after it is signed (drop a header...)
	Body        []byte                // sent instead of the signed body (a Digest that does not match)
	Client      *http.Client          // instead of the server's Client
}

// Post signs activity (a JSON-marshalable value, or []byte sent as it is)
// as the actor, draft-cavage rsa-sha256 over "(request-target) host date
// digest", and POSTs it to inboxURL as application/activity+json. It
// returns the answer's status and body; a request that gets no answer
// fails the test and returns 0.
func (a *Actor) Post(t testing.TB, inboxURL string, activity any) (int, string) {
	t.Helper()
	return a.PostWith(t, inboxURL, activity, PostOptions{})
}

// PostWith is Post with options: another key or keyId, no signature, a
// fixed Date, another body, and hooks that change the request before or
// after it is signed.
func (a *Actor) PostWith(t testing.TB, inboxURL string, activity any, o PostOptions) (int, string) {
	t.Helper()
	body, ok := activity.([]byte)
	if !ok {
		var err error
		if body, err = json.Marshal(activity); err != nil {
			t.Errorf("fedtest: encoding the activity: %v", err)
			return 0, ""
		}
	}
	r, err := http.NewRequest(http.MethodPost, inboxURL, bytes.NewReader(body))
	if err != nil {
		t.Errorf("fedtest: %v", err)
		return 0, ""
	}
	ct := o.ContentType
	if ct == "" {
		ct = activitypub.ContentType
	}
	r.Header.Set("Content-Type", ct)
	r.Header.Set("Accept", activitypub.ContentType)
	if o.Before != nil {
		o.Before(r)
	}
	signer := httpsig.Signer{KeyID: a.KeyID, Key: a.key()}
	if o.Key != nil {
		signer.Key = o.Key
	}
	if o.KeyID != "" {
		signer.KeyID = o.KeyID
	}
	if !o.Date.IsZero() {
		signer.Now = func() time.Time { return o.Date }
	}
	if err := signer.Sign(r, body); err != nil {
		t.Errorf("fedtest: signing: %v", err)
		return 0, ""
	}
	if o.Unsigned {
		r.Header.Del("Signature")
	}
	if o.After != nil {
		o.After(r)
	}
	if o.Body != nil {
		r.Body = io.NopCloser(bytes.NewReader(o.Body))
		r.ContentLength = int64(len(o.Body))
		r.GetBody = nil
	}
	client := o.Client
	if client == nil {
		client = a.Server.client()
	}
	resp, err := client.Do(r)
	if err != nil {
		t.Errorf("fedtest: posting to %s: %v", inboxURL, err)
		return 0, ""
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(answer)
}

func (a *Actor) key() *rsa.PrivateKey {
	a.Server.mu.Lock()
	defer a.Server.mu.Unlock()
	return a.Key
}

// NextID returns a fresh IRI under the actor: {ID}/{kind}/{n}.
func (a *Actor) NextID(kind string) string {
	a.mu.Lock()
	a.seen++
	n := a.seen
	a.mu.Unlock()
	return a.ID + "/" + kind + "/" + strconv.Itoa(n)
}

func (a *Actor) activity(typ string, object any) map[string]any {
	return map[string]any{
		"@context": activitypub.ActivityStreamsContext,
		"id":       a.NextID("activities"),
		"type":     typ,
		"actor":    a.ID,
		"object":   object,
	}
}

// Follow asks to follow target (an actor's IRI).
func (a *Actor) Follow(target string) map[string]any {
	return a.activity("Follow", target)
}

// Undo takes back inner (a Follow, Like or Announce), embedded as
// Mastodon embeds it.
func (a *Actor) Undo(inner map[string]any) map[string]any {
	return a.activity("Undo", inner)
}

// CreateNote publishes a public Note: id is its IRI ("" makes one under
// the actor), inReplyTo the IRI it answers ("" for none), html its content.
func (a *Actor) CreateNote(id, inReplyTo, html string) map[string]any {
	return a.noteActivity("Create", id, inReplyTo, html)
}

// UpdateNote publishes the Note id's new content.
func (a *Actor) UpdateNote(id, inReplyTo, html string) map[string]any {
	return a.noteActivity("Update", id, inReplyTo, html)
}

func (a *Actor) noteActivity(typ, id, inReplyTo, html string) map[string]any {
	if id == "" {
		id = a.NextID("statuses")
	}
	now := time.Now().UTC().Format(time.RFC3339)
	note := map[string]any{
		"id":           id,
		"type":         "Note",
		"attributedTo": a.ID,
		"content":      html,
		"published":    now,
		"url":          id,
		"to":           []string{activitypub.Public},
		"cc":           []string{a.ID + "/followers"},
	}
	if inReplyTo != "" {
		note["inReplyTo"] = inReplyTo
	} else {
		note["inReplyTo"] = nil
	}
	if typ == "Update" {
		note["updated"] = now
	}
	act := a.activity(typ, note)
	act["published"] = now
	act["to"] = note["to"]
	act["cc"] = note["cc"]
	return act
}

// DeleteNote deletes the Note id, sent as a Tombstone as Mastodon sends it.
func (a *Actor) DeleteNote(id string) map[string]any {
	act := a.activity("Delete", map[string]any{"id": id, "type": "Tombstone"})
	act["to"] = []string{activitypub.Public}
	return act
}

// Like likes object (an IRI).
func (a *Actor) Like(object string) map[string]any {
	return a.activity("Like", object)
}

// Announce boosts object (an IRI) publicly.
func (a *Actor) Announce(object string) map[string]any {
	act := a.activity("Announce", object)
	act["published"] = time.Now().UTC().Format(time.RFC3339)
	act["to"] = []string{activitypub.Public}
	act["cc"] = []string{a.ID + "/followers"}
	return act
}

// DeleteActor announces that the account is gone: a Delete whose object
// is the actor itself.
func (a *Actor) DeleteActor() map[string]any {
	act := a.activity("Delete", a.ID)
	act["to"] = []string{activitypub.Public}
	return act
}
