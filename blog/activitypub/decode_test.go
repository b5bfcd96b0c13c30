package activitypub

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeActivitiesOfOtherServers(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, o *Object)
	}{
		{"mastodon-follow.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Follow")
			eq(t, "actor", o.Actor, Ref{ID: "https://mastodon.example/users/alice"})
			eq(t, "object", o.Object, Ref{ID: "https://blog.example/ap/actor"})
			eq(t, "context", o.Context, any(ActivityStreamsContext))
		}},
		{"mastodon-undo-follow.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Undo")
			eq(t, "object id", o.Object.ID, "https://mastodon.example/2f1e7c9a-5b1d-4c55-9a0e-0d5a3c7e9b11")
			if o.Object.Object == nil {
				t.Fatal("the Follow is not embedded")
			}
			f := o.Object.Object
			eq(t, "embedded type", f.Type, "Follow")
			eq(t, "embedded actor", f.Actor.ID, "https://mastodon.example/users/alice")
			eq(t, "embedded object", f.Object.ID, "https://blog.example/ap/actor")
		}},
		{"mastodon-create-note.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Create")
			eq(t, "to", o.To.IDs(), []string{Public})
			eq(t, "cc", o.Cc.IDs(), []string{"https://mastodon.example/users/alice/followers", "https://blog.example/ap/actor"})
			n := o.Object.Object
			if n == nil {
				t.Fatal("the Note is not embedded")
			}
			eq(t, "note type", n.Type, "Note")
			eq(t, "inReplyTo", n.InReplyTo.ID, "https://blog.example/posts/hello-world")
			eq(t, "attributedTo", n.AttributedTo.ID, "https://mastodon.example/users/alice")
			eq(t, "url", n.URL.IRI(), "https://mastodon.example/@alice/111222333444555666")
			eq(t, "published", n.Published, "2024-03-01T10:15:30Z")
			eq(t, "summary (null)", n.Summary, "")
			if !strings.Contains(n.Text(), "Lovely post!") || n.ContentMap["en"] != n.Content {
				t.Errorf("content %q, contentMap %q", n.Content, n.ContentMap)
			}
			eq(t, "attachment", len(n.Attachment), 0)
			if len(n.Tag) != 2 || n.Tag[0].Object == nil || n.Tag[1].Object == nil {
				t.Fatalf("tags %#v", n.Tag)
			}
			eq(t, "mention", [3]string{n.Tag[0].Object.Type, n.Tag[0].Object.Href, n.Tag[0].Object.Name}, [3]string{"Mention", "https://blog.example/ap/actor", "@blog@blog.example"})
			eq(t, "hashtag", [3]string{n.Tag[1].Object.Type, n.Tag[1].Object.Href, n.Tag[1].Object.Name}, [3]string{"Hashtag", "https://mastodon.example/tags/golang", "#golang"})
			eq(t, "tag IRIs (none have ids)", n.Tag.IDs(), []string(nil))
		}},
		{"contentmap-only-note.json", func(t *testing.T, o *Object) {
			eq(t, "text (first language in order)", o.Text(), "<p>Hallo</p>")
			eq(t, "inReplyTo embedded", o.InReplyTo.ID, "https://blog.example/posts/hello-world")
			eq(t, "to as one string", o.To.IDs(), []string{Public})
		}},
		{"mastodon-like.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Like")
			eq(t, "object", o.Object.ID, "https://blog.example/posts/hello-world")
		}},
		{"mastodon-announce.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Announce")
			eq(t, "object", o.Object.ID, "https://blog.example/posts/hello-world")
			eq(t, "published", o.Published, "2024-03-01T11:00:00Z")
		}},
		{"mastodon-delete.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Delete")
			eq(t, "object", o.Object.ID, "https://mastodon.example/users/alice/statuses/111222333444555666")
			if o.Object.Object == nil || o.Object.Object.Type != "Tombstone" {
				t.Errorf("object %#v", o.Object.Object)
			}
		}},
		{"mastodon-actor.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Person")
			eq(t, "username", o.PreferredUsername, "alice")
			eq(t, "name", o.Name, "Alice")
			eq(t, "inbox", o.Inbox, "https://mastodon.example/users/alice/inbox")
			eq(t, "outbox", o.Outbox, "https://mastodon.example/users/alice/outbox")
			eq(t, "followers", o.Followers, "https://mastodon.example/users/alice/followers")
			eq(t, "endpoints", o.Endpoints, &Endpoints{SharedInbox: "https://mastodon.example/inbox"})
			eq(t, "key id", o.PublicKey.ID, "https://mastodon.example/users/alice#main-key")
			eq(t, "key owner", o.PublicKey.Owner, "https://mastodon.example/users/alice")
			eq(t, "key PEM", strings.HasPrefix(o.PublicKey.PublicKeyPem, "-----BEGIN PUBLIC KEY-----\n"), true)
			eq(t, "icon", o.Icon, &Image{Type: "Image", MediaType: "image/png", URL: "https://files.mastodon.example/accounts/avatars/alice.png"})
			eq(t, "image", o.Image.URL, "https://files.mastodon.example/accounts/headers/alice.jpg")
			eq(t, "url", o.URL.IRI(), "https://mastodon.example/@alice")
			eq(t, "discoverable", o.Discoverable, ptr(true))
			eq(t, "manuallyApprovesFollowers", o.ManuallyApprovesFollowers, false)
			eq(t, "attachment", o.Attachment[0].Object.Type, "PropertyValue")
		}},
		{"gotosocial-actor.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Person")
			eq(t, "key id", o.PublicKey.ID, "https://gts.example/users/dave/main-key")
			eq(t, "no endpoints", o.Endpoints, (*Endpoints)(nil))
			eq(t, "manuallyApprovesFollowers", o.ManuallyApprovesFollowers, true)
			eq(t, "discoverable", o.Discoverable, ptr(false))
			eq(t, "icon", o.Icon.URL, "https://gts.example/fileserver/01ABC/attachment/original/01DEF.webp")
		}},
		{"misskey-actor.json", func(t *testing.T, o *Object) {
			eq(t, "key from an array", o.PublicKey.ID, "https://misskey.example/users/9q1w2e3r4t#main-key")
			eq(t, "endpoints", o.Endpoints.SharedInbox, "https://misskey.example/inbox")
			eq(t, "image null", o.Image, (*Image)(nil))
			eq(t, "icon", o.Icon, &Image{Type: "Image", URL: "https://misskey.example/files/avatar-hana"})
			eq(t, "emoji tag", o.Tag[0].Object.Type, "Emoji")
			eq(t, "emoji icon", o.Tag[0].Object.Icon.URL, "https://misskey.example/files/blobcat")
		}},
		{"pleroma-actor.json", func(t *testing.T, o *Object) {
			eq(t, "endpoints", o.Endpoints, &Endpoints{SharedInbox: "https://pleroma.example/inbox"})
			eq(t, "key owner", o.PublicKey.Owner, "https://pleroma.example/users/erin")
			eq(t, "url", o.URL.ID, "https://pleroma.example/users/erin")
		}},
		{"fedify-actor.json", func(t *testing.T, o *Object) {
			eq(t, "type", o.Type, "Service")
			eq(t, "key from an array", o.PublicKey.ID, "https://fedify.example/users/gil#main-key")
			eq(t, "url as a Link", o.URL.IRI(), "https://fedify.example/@gil")
			eq(t, "icon from an array", o.Icon.URL, "https://fedify.example/icon.png")
			eq(t, "endpoints", o.Endpoints.SharedInbox, "https://fedify.example/inbox")
		}},
		{"odd-types.json", func(t *testing.T, o *Object) {
			eq(t, "type from an array", o.Type, "Note")
			eq(t, "content as an object", o.Content, "")
			eq(t, "text from the contentMap's strings", o.Text(), "<p>Bonjour</p>")
			eq(t, "name as a number", o.Name, "")
			eq(t, "summary as an array", o.Summary, "")
			eq(t, "published as a number", o.Published, "")
			eq(t, "to as a number", o.To, Refs(nil))
			eq(t, "cc, odd values skipped", o.Cc.IDs(), []string{"https://odd.example/users/x/followers", "https://odd.example/users/y"})
			eq(t, "sensitive as a string", o.Sensitive, false)
			eq(t, "one tag", len(o.Tag), 1)
			eq(t, "attachment as a string", o.Attachment.IDs(), []string{"https://odd.example/files/1.png"})
			eq(t, "inbox as an object", o.Inbox, "https://odd.example/users/x/inbox")
			eq(t, "outbox as a boolean", o.Outbox, "")
			eq(t, "endpoints as a string", o.Endpoints, (*Endpoints)(nil))
			eq(t, "publicKey as an IRI", o.PublicKey, &PublicKey{ID: "https://odd.example/users/x#main-key"})
			eq(t, "icon as a URL", o.Icon, &Image{URL: "https://odd.example/icon.png"})
			eq(t, "image as a number", o.Image, (*Image)(nil))
			eq(t, "discoverable as a string", o.Discoverable, (*bool)(nil))
			eq(t, "totalItems as a string", o.TotalItems, (*int)(nil))
			eq(t, "url from an array", o.URL.IRI(), "https://odd.example/@x")
			eq(t, "attributedTo past a null", o.AttributedTo.ID, "https://odd.example/users/x")
			eq(t, "inReplyTo as a boolean", o.InReplyTo, Ref{})
		}},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSuffix(tc.file, ".json"), func(t *testing.T) {
			o := decodeFile(t, tc.file)
			tc.check(t, o)
			// Encoded and decoded again, it is the same object.
			data, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Decode(data)
			if err != nil {
				t.Fatalf("%s: %v", data, err)
			}
			eq(t, "the object encoded and decoded again", again, o)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeRefusesWhatIsNoObject(t *testing.T) {
	deep := strings.Repeat(`{"type":"Note","object":`, MaxDepth+1) + `"x"` + strings.Repeat("}", MaxDepth+1)
	for name, doc := range map[string]string{
		"empty":               "",
		"null":                "null",
		"an array":            `[{"type":"Note"}]`,
		"a string":            `"https://remote.example/x"`,
		"a number":            `12`,
		"no type":             `{"id":"https://remote.example/x"}`,
		"an empty type":       `{"type":""}`,
		"a type not a string": `{"type":7}`,
		"broken JSON":         `{"type":"Note"`,
		"trailing data":       `{"type":"Note"} {}`,
		"nested too deeply":   deep,
	} {
		t.Run(name, func(t *testing.T) {
			o, err := Decode([]byte(doc))
			if err == nil || o != nil {
				t.Fatalf("Decode(%.60q) = %+v, %v", doc, o, err)
			}
			if !errors.Is(err, ErrNotActivity) {
				t.Errorf("%v is not ErrNotActivity", err)
			}
		})
	}
	nested := strings.Repeat(`{"type":"Note","object":`, MaxDepth-1) + `"x"` + strings.Repeat("}", MaxDepth-1)
	if _, err := Decode([]byte(nested)); err != nil {
		t.Errorf("nesting within the bound: %v", err)
	}
}

func TestEncodeWritesOnlyWhatIsSet(t *testing.T) {
	total := 0
	tests := []struct {
		name string
		obj  Object
		want string
	}{
		{"an empty object", Object{}, `{}`},
		{"a Follow of IRIs", Object{Context: ActivityStreamsContext, ID: "https://blog.example/ap/follows/1", Type: "Follow",
			Actor: Ref{ID: "https://blog.example/ap/actor"}, Object: Ref{ID: "https://remote.example/users/bob"}},
			`{"@context":"https://www.w3.org/ns/activitystreams","id":"https://blog.example/ap/follows/1","type":"Follow","actor":"https://blog.example/ap/actor","object":"https://remote.example/users/bob"}`},
		{"an Accept embedding the Follow", Object{Type: "Accept", Actor: Ref{ID: "https://blog.example/ap/actor"},
			Object: Ref{ID: "https://remote.example/f/1", Object: &Object{ID: "https://remote.example/f/1", Type: "Follow", Actor: Ref{ID: "https://remote.example/users/bob"}}}},
			`{"type":"Accept","actor":"https://blog.example/ap/actor","object":{"id":"https://remote.example/f/1","type":"Follow","actor":"https://remote.example/users/bob"}}`},
		{"an Article with audience, tags and a link", Object{ID: "https://blog.example/posts/a", Type: "Article", Name: "A",
			To: Refs{{ID: Public}}, Cc: Refs{{ID: "https://blog.example/ap/followers"}},
			URL: Ref{ID: "https://blog.example/posts/a"},
			Tag: Refs{{Object: &Object{Type: "Hashtag", Href: "https://blog.example/tags/go", Name: "#go"}}}},
			`{"id":"https://blog.example/posts/a","type":"Article","to":["https://www.w3.org/ns/activitystreams#Public"],"cc":["https://blog.example/ap/followers"],"name":"A","url":"https://blog.example/posts/a","tag":[{"type":"Hashtag","name":"#go","href":"https://blog.example/tags/go"}]}`},
		{"an empty collection", Object{ID: "https://blog.example/ap/followers", Type: "OrderedCollection", TotalItems: &total},
			`{"id":"https://blog.example/ap/followers","type":"OrderedCollection","totalItems":0}`},
		{"an actor", Object{Context: []any{ActivityStreamsContext, SecurityContext}, ID: "https://blog.example/ap/actor", Type: "Person",
			PreferredUsername: "blog", Inbox: "https://blog.example/ap/inbox", Endpoints: &Endpoints{SharedInbox: "https://blog.example/ap/inbox"},
			PublicKey: &PublicKey{ID: "https://blog.example/ap/actor#main-key", Owner: "https://blog.example/ap/actor", PublicKeyPem: "PEM"},
			Icon:      &Image{Type: "Image", URL: "https://blog.example/icon.png"}, Discoverable: ptr(true)},
			`{"@context":["https://www.w3.org/ns/activitystreams","https://w3id.org/security/v1"],"id":"https://blog.example/ap/actor","type":"Person","preferredUsername":"blog","inbox":"https://blog.example/ap/inbox","endpoints":{"sharedInbox":"https://blog.example/ap/inbox"},"publicKey":{"id":"https://blog.example/ap/actor#main-key","owner":"https://blog.example/ap/actor","publicKeyPem":"PEM"},"icon":{"type":"Image","url":"https://blog.example/icon.png"},"discoverable":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", data, tc.want)
			}
		})
	}
}

func TestRefsReadOneValueOrMany(t *testing.T) {
	tests := []struct {
		json string
		want []string
	}{
		{`null`, nil},
		{`"https://a.example/x"`, []string{"https://a.example/x"}},
		{`["https://a.example/x", {"id": "https://a.example/y"}]`, []string{"https://a.example/x", "https://a.example/y"}},
		{`{"id": "https://a.example/y", "type": "Person"}`, []string{"https://a.example/y"}},
		{`[]`, nil},
		{`[1, true, null, [["https://a.example/nested"]]]`, nil},
		{`7`, nil},
	}
	for _, tc := range tests {
		var rs Refs
		if err := json.Unmarshal([]byte(tc.json), &rs); err != nil {
			t.Errorf("%s: %v", tc.json, err)
		}
		eq(t, tc.json, rs.IDs(), tc.want)
		var r Ref
		if err := json.Unmarshal([]byte(tc.json), &r); err != nil {
			t.Errorf("%s: %v", tc.json, err)
		}
		var firstID []string
		if r.ID != "" {
			firstID = []string{r.ID}
		}
		if len(tc.want) > 0 {
			eq(t, tc.json+" as one Ref", firstID, tc.want[:1])
		}
	}
}
