package blog

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"regexp"
	"strings"
	"time"

	"folio/blog/activitypub"
	"folio/httpx"
	"folio/sqlstore"
)

// The administrator's replies to fediverse comments are Notes of the
// blog's actor: each has the IRI origin+"/ap/comments/{id}", which this
// file serves, and goes to the author of the comment it answers
// (docs/federation.md#moderation).

// federationCommentRoutes registers GET /ap/comments/{id} on s, the
// surface of the blog's other ActivityStreams documents, whose envelope
// env answers its errors.
func (b *Blog) federationCommentRoutes(s *httpx.Surface, env httpx.Envelope) {
	s.Handle("GET /ap/comments/{id}", env.Handle(b.handleFedComment))
}

// replyIRI is the Note IRI of the administrator's reply id.
func replyIRI(origin, id string) string { return origin + "/ap/comments/" + id }

// handleFedComment answers the Note of one of the administrator's
// approved replies on a publicly visible post; 404 for anything else and
// while federation is off. With authorized fetch on, the request must be
// signed by a server that is not blocked.
func (b *Blog) handleFedComment(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if !b.fedSettings(ctx).Enabled {
		return httpx.NotFound()
	}
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return httpx.NotFound()
	}
	if err := b.verifyFetch(r); err != nil {
		return err
	}
	note, err := b.replyNoteOf(ctx, id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.NotFound()
	}
	if err != nil {
		return err
	}
	note.Context = activitypub.ActivityStreamsContext
	body, err := json.Marshal(note)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", activitypub.ContentType+"; charset=utf-8")
	w.Header().Set("Vary", "Accept, Signature")
	_, _ = w.Write(body)
	return nil
}

// replyNoteOf rebuilds the Note of the administrator's reply id as it was
// sent; sqlstore.ErrNotFound unless id is such a reply, approved, on a
// publicly visible post.
func (b *Blog) replyNoteOf(ctx context.Context, id string) (*activitypub.Object, error) {
	c, err := b.adminComment(ctx, id)
	if err != nil {
		return nil, err
	}
	if !c.ownReply() || c.Status != CommentApproved || !strings.HasSuffix(c.apID, "/ap/comments/"+c.ID) {
		return nil, sqlstore.ErrNotFound
	}
	p, err := b.postBy(ctx, "id", c.PostID, true)
	if err != nil {
		return nil, err
	}
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return nil, err
	}
	var parent PublicComment
	var author *remoteActor
	if pc, err := b.adminComment(ctx, c.ReplyTo); err == nil {
		parent = pc.PublicComment
		if author, err = b.commentAuthor(ctx, parent); err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
			return nil, err
		}
	} else if !errors.Is(err, sqlstore.ErrNotFound) {
		return nil, err
	}
	return replyNote(origin, p.Slug, c.PublicComment, parent, author), nil
}

// commentAuthor is the stored actor of a fediverse comment;
// sqlstore.ErrNotFound when the comment has none or the blog no longer
// holds it.
func (b *Blog) commentAuthor(ctx context.Context, c PublicComment) (*remoteActor, error) {
	if c.apActor == "" {
		return nil, sqlstore.ErrNotFound
	}
	a, _, err := b.loadRemoteActor(ctx, "id", c.apActor)
	return a, err
}

// replyNote is the Note of the administrator's reply to parent, a
// fediverse comment by author (nil when the blog does not know the actor:
// the Note then mentions no one). It is addressed to the author and the
// blog's followers, as a reply on Mastodon is by default.
func replyNote(origin, slug string, reply, parent PublicComment, author *remoteActor) *activitypub.Object {
	n := &activitypub.Object{
		ID: reply.apID, Type: "Note", AttributedTo: activitypub.Ref{ID: actorIRI(origin)},
		InReplyTo: activitypub.Ref{ID: parent.apID},
		Cc:        activitypub.Refs{{ID: actorFollowers(origin)}},
		Published: reply.CreatedAt.UTC().Format(time.RFC3339),
		URL:       activitypub.Ref{ID: postIRI(origin, slug) + "#comment-" + reply.ID},
		MediaType: "text/html",
	}
	mention := ""
	if author != nil {
		handle := author.Handle
		if handle == "" {
			handle = parent.AuthorHandle
		}
		n.To = activitypub.Refs{{ID: author.ID}}
		n.Tag = activitypub.Refs{{Object: &activitypub.Object{Type: "Mention", Href: author.ID, Name: "@" + handle}}}
		href := webURL(author.URL)
		if href == "" {
			href = author.ID
		}
		user, _, _ := strings.Cut(handle, "@")
		mention = `<span class="h-card"><a href="` + html.EscapeString(href) + `" class="u-url mention">@<span>` + html.EscapeString(user) + `</span></a></span> `
	}
	n.Content = noteHTML(mention, reply.Content)
	return n
}

// paragraphBreak splits plain text into paragraphs at blank lines.
var paragraphBreak = regexp.MustCompile(`\n[ \t]*\n+`)

// noteHTML is plain text as a Note's HTML: escaped, a paragraph per block
// of lines, a <br> per line break, lead (trusted HTML: the mention) at the
// start of the first paragraph.
func noteHTML(lead, text string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	var sb strings.Builder
	for i, p := range paragraphBreak.Split(text, -1) {
		sb.WriteString("<p>")
		if i == 0 {
			sb.WriteString(lead)
		}
		sb.WriteString(strings.ReplaceAll(html.EscapeString(strings.TrimSpace(p)), "\n", "<br>"))
		sb.WriteString("</p>")
	}
	return sb.String()
}

// createNote wraps the Note of a reply in the Create that delivers it.
func createNote(origin string, note *activitypub.Object) *activitypub.Object {
	return &activitypub.Object{Context: activitypub.ActivityStreamsContext, ID: activityIRI(origin), Type: "Create",
		Actor: activitypub.Ref{ID: actorIRI(origin)}, Object: activitypub.Ref{Object: note},
		To: note.To, Cc: note.Cc, Published: note.Published}
}
