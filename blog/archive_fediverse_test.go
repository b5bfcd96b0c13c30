package blog_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"folio/blog/fedtest"
)

// storedComment is a comment's row as the import writes it.
type storedComment struct {
	ID, PostID, Author, Content, APID, APActor, Handle, URL, ReplyTo string
}

// commentRows reads every comment of the blog, oldest first.
func (e *env) commentRows() []storedComment {
	e.t.Helper()
	rows, err := e.db.Query(e.t.Context(), `SELECT id, post_id, author, content, ap_id, ap_actor, author_handle, author_url, reply_to
		FROM comments ORDER BY created_at, id`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []storedComment
	for rows.Next() {
		var c storedComment
		if err := rows.Scan(&c.ID, &c.PostID, &c.Author, &c.Content, &c.APID, &c.APActor, &c.Handle, &c.URL, &c.ReplyTo); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// commentCounts is the comments' line of an import's result.
type commentCounts struct{ Created, Skipped, Changed int }

// importComments imports archive and returns the comments' counts and
// the warnings.
func (e *env) importComments(archive []byte) (commentCounts, []string) {
	e.t.Helper()
	var res struct {
		Comments commentCounts `json:"comments"`
		Warnings []string      `json:"warnings"`
	}
	data(e.t, e.admin.Upload("/api/v1/admin/import", "file", "site.zip", archive), 200, &res)
	return res.Comments, res.Warnings
}

func TestExportImportKeepsFediverseCommentsAndTheReplyThread(t *testing.T) {
	src := newFedConsoleEnv(t, true)
	alice := fedtest.New(t).Actor("alice")
	src.knownActor(alice)
	p := src.publish("Far and wide", "slug", "far-and-wide")
	var local struct{ ID string }
	data(t, src.visitor("10.9.0.1").Do("POST", "/api/v1/posts/"+p.ID+"/comments",
		map[string]string{"author": "Lou", "email": "lou@example.com", "content": "Local"}), 201, &local)
	src.exec("UPDATE comments SET status = 'approved' WHERE id = $1", local.ID)
	lovely := src.fediverseComment(alice, p.ID, "approved", "Lovely post")
	_, tok := consolePage(t, src.admin, "/console/blog/comments?status=all", 200)
	src.admin.PostForm("/console/blog/comments/"+lovely+"/reply", "form_token", tok, "content", "Thank you!", "status", "all", "page", "1").Expect(303)
	before := src.commentRows()
	if len(before) != 3 || before[2].ReplyTo != lovely || before[2].APID == "" {
		t.Fatalf("the source blog's comments: %+v", before)
	}

	archive := src.admin.Do("GET", "/api/v1/admin/export", nil).Expect(200).Body
	var items []map[string]any
	if err := json.Unmarshal(zipFiles(t, archive)["comments.json"], &items); err != nil || len(items) != 3 {
		t.Fatalf("comments.json: %d items (%v)", len(items), err)
	}
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	plain := []string{"author", "content", "created_at", "email", "ip", "post", "status", "user_agent"}
	if got := keys(items[0]); !slices.Equal(got, plain) {
		t.Errorf("a site comment is exported with %q, want only version 1's %q", got, plain)
	}
	want := []map[string]any{
		{"id": lovely, "ap_id": before[1].APID, "ap_actor": alice.ID, "author_handle": alice.Handle, "author_url": alice.URL},
		{"id": before[2].ID, "ap_id": before[2].APID, "reply_to": lovely},
	}
	for i, w := range want {
		for k, v := range w {
			if items[i+1][k] != v {
				t.Errorf("comments.json item %d: %s = %v, want %v", i+2, k, items[i+1][k], v)
			}
		}
		if _, ok := items[i+1]["ap_actor"]; ok != (i == 0) {
			t.Errorf("comments.json item %d: ap_actor present %v", i+2, ok)
		}
	}

	dst := newEnv(t)
	got, warnings := dst.importComments(archive)
	if got != (commentCounts{Created: 3}) || len(warnings) != 0 {
		t.Fatalf("import: comments %+v, warnings %q", got, warnings)
	}
	after := dst.commentRows()
	if len(after) != 3 {
		t.Fatalf("imported comments %+v", after)
	}
	site, remote, reply := after[0], after[1], after[2]
	if site.APID != "" || site.Handle != "" || site.ReplyTo != "" {
		t.Errorf("the site's comment gained fediverse fields: %+v", site)
	}
	if remote.APID != before[1].APID || remote.APActor != alice.ID || remote.Handle != alice.Handle || remote.URL != alice.URL || remote.ReplyTo != "" {
		t.Errorf("the fediverse comment imported as %+v, exported as %+v", remote, before[1])
	}
	// The reply answers the new comment; its Note was the old blog's.
	if reply.ReplyTo != remote.ID || reply.APID != "" || reply.APActor != "" || reply.Content != "Thank you!" {
		t.Errorf("the reply imported as %+v (the comment it answers is %s)", reply, remote.ID)
	}
	var listed struct {
		Items []struct {
			ID           string `json:"id"`
			ReplyTo      string `json:"reply_to"`
			AuthorHandle string `json:"author_handle"`
			Fediverse    bool   `json:"fediverse"`
		}
	}
	data(t, dst.admin.Do("GET", "/api/v1/admin/comments?page_size=10", nil), 200, &listed)
	seen := 0
	for _, c := range listed.Items {
		switch c.ID {
		case remote.ID:
			seen++
			if !c.Fediverse || c.AuthorHandle != alice.Handle {
				t.Errorf("the API shows the fediverse comment as %+v", c)
			}
		case reply.ID:
			seen++
			if c.ReplyTo != remote.ID {
				t.Errorf("the API shows the reply as %+v", c)
			}
		}
	}
	if seen != 2 {
		t.Errorf("the API lists %d of the two imported fediverse comments", seen)
	}

	// Twice: nothing more, even after the Note was edited on the new blog,
	// whose ap_id (unique) then matches where the text does not.
	dst.exec("UPDATE comments SET content = 'Lovely post, edited' WHERE id = $1", remote.ID)
	for range 2 {
		got, warnings = dst.importComments(archive)
		if got != (commentCounts{Skipped: 3}) || len(warnings) != 0 {
			t.Fatalf("import again: comments %+v, warnings %q", got, warnings)
		}
	}
	if n := len(dst.commentRows()); n != 3 {
		t.Fatalf("%d comments after importing again, want 3", n)
	}
	// Into the blog it came from: everything is there already.
	if got, warnings := src.importComments(archive); got != (commentCounts{Skipped: 3}) || len(warnings) != 0 {
		t.Fatalf("import into the source: comments %+v, warnings %q", got, warnings)
	}
}

func TestImportChecksTheFediverseFieldsOfAnArchive(t *testing.T) {
	const good = `"ap_id": "https://social.example/notes/1", "ap_actor": "https://social.example/users/ann"`
	long := "https://social.example/" + strings.Repeat("a", 2048)
	tests := []struct {
		name   string
		fields string // of the second comment; the first is {"id": "first", good}
		want   storedComment
		notes  []string // what the report says of the second; "skipped" when it is not imported
	}{
		{"a fediverse reply as exported", `"id": "x", "ap_id": "https://social.example/notes/2", "ap_actor": "https://social.example/users/bo", "author_handle": "bo@social.example", "author_url": "https://social.example/@bo", "reply_to": "first"`,
			storedComment{APID: "https://social.example/notes/2", APActor: "https://social.example/users/bo", Handle: "bo@social.example", URL: "https://social.example/@bo", ReplyTo: "first"}, nil},
		{"a script as the profile", `"author_url": "javascript:alert(1)"`, storedComment{}, []string{"author_url left out: it is not an http(s) URL"}},
		{"a relative profile", `"author_url": "/users/bo"`, storedComment{}, []string{"author_url left out: it is not an http(s) URL"}},
		{"a control character in the handle", `"author_handle": "bo\u001b[31m@social.example"`, storedComment{}, []string{"author_handle left out: it holds control characters"}},
		{"a line break in the Note", `"ap_id": "https://social.example/notes/2\n", "ap_actor": "https://social.example/users/bo"`, storedComment{},
			[]string{"ap_id left out: it holds control characters", "ap_actor left out: it goes with the Note's ap_id"}},
		{"an overlong Note", `"ap_id": "` + long + `", "ap_actor": "https://social.example/users/bo"`, storedComment{}, []string{"ap_id left out: it is longer than 2048 bytes", "ap_actor left out: it goes with the Note's ap_id"}},
		{"an overlong profile", `"author_url": "` + long + `"`, storedComment{}, []string{"author_url left out: it is longer than 2048 bytes"}},
		{"a Note of another server than its actor", `"ap_id": "https://victim.example/notes/2", "ap_actor": "https://social.example/users/bo"`, storedComment{},
			[]string{"ap_id and ap_actor left out: they are not http(s) addresses of one server"}},
		{"a Note that is not http", `"ap_id": "file:///etc/passwd", "ap_actor": "file:///etc/group"`, storedComment{},
			[]string{"ap_id and ap_actor left out: they are not http(s) addresses of one server"}},
		{"an actor without its Note", `"ap_actor": "https://social.example/users/bo"`, storedComment{}, []string{"ap_actor left out: it goes with the Note's ap_id"}},
		{"the blog's own reply", `"id": "r", "ap_id": "https://old.example/ap/comments/r", "reply_to": "first"`, storedComment{ReplyTo: "first"}, nil},
		{"a reply to nothing", `"reply_to": "nowhere"`, storedComment{}, []string{`reply_to left out: the comment it answers ("nowhere") is not before it in the archive`}},
		{"a reply to itself", `"id": "me", "reply_to": "me"`, storedComment{}, []string{`reply_to left out: the comment it answers ("me") is not before it in the archive`}},
		{"a reply across posts", `"post": "other", "reply_to": "first"`, storedComment{}, []string{`reply_to left out: the comment it answers ("first") is on another post`}},
		{"a Note the archive holds twice", good, storedComment{}, []string{"skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			second := `{"post": "hello", "author": "Bo", "content": "second", "status": "approved", "created_at": "2024-01-01T00:00:02Z", ` + tt.fields + `}`
			if strings.Contains(tt.fields, `"post"`) {
				second = `{"author": "Bo", "content": "second", "status": "approved", "created_at": "2024-01-01T00:00:02Z", ` + tt.fields + `}`
			}
			archive := makeZip(t, "manifest.json", manifestV1,
				"posts/hello.md", "---\ntitle: Hello\nslug: hello\nstatus: published\n---\nhi\n",
				"posts/other.md", "---\ntitle: Other\nslug: other\nstatus: published\n---\nho\n",
				"comments.json", `[{"id": "first", "post": "hello", "author": "Ann", "content": "first", "status": "approved", "created_at": "2024-01-01T00:00:01Z", `+good+`},
					`+second+`]`)
			got, warnings := e.importComments(archive)
			rows := e.commentRows()
			if slices.Equal(tt.notes, []string{"skipped"}) {
				if got != (commentCounts{Created: 1, Skipped: 1}) || len(warnings) != 0 || len(rows) != 1 {
					t.Fatalf("comments %+v, warnings %q, rows %+v", got, warnings, rows)
				}
				return
			}
			wantCounts, wantWarnings := commentCounts{Created: 2}, []string{}
			for _, n := range tt.notes {
				wantCounts.Changed = 1
				wantWarnings = append(wantWarnings, "comments.json item 2: "+n)
			}
			if got != wantCounts || !slices.Equal(warnings, wantWarnings) {
				t.Fatalf("comments %+v, warnings %q; want %+v, %q", got, warnings, wantCounts, wantWarnings)
			}
			if len(rows) != 2 {
				t.Fatalf("rows %+v", rows)
			}
			first, c := rows[0], rows[1]
			if first.APID != "https://social.example/notes/1" || first.APActor != "https://social.example/users/ann" {
				t.Errorf("the first comment stored as %+v", first)
			}
			if tt.want.ReplyTo != "" {
				tt.want.ReplyTo = first.ID
			}
			c.ID, c.PostID, c.Author, c.Content = "", "", "", ""
			if c != tt.want {
				t.Errorf("stored as %+v, want %+v", c, tt.want)
			}
		})
	}
}
