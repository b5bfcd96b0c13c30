package blog

import (
	"fmt"
	"net/url"
	"unicode"
	"unicode/utf8"

	"folio/blog/activitypub"
)

// maxArchiveIRI bounds each of a comment's fediverse fields in an
// archive, as a remote actor's fields are bounded when the inbox stores
// them.
const maxArchiveIRI = 2048

// archiveFediverse is what a Folio archive keeps of a comment that came
// from or went to the fediverse (docs/export-import.md#comments-from-the-fediverse).
type archiveFediverse struct {
	ID, APID, APActor, AuthorHandle, AuthorURL, ReplyTo string
}

// commentRef is a comment of the blog an archive's comment became.
type commentRef struct{ id, postID string }

// fediverse returns the fields of f the blog stores for a comment on the
// post postID, and notes on what it left out: an archive may come from
// anywhere, so each value is checked as the inbox would have checked it.
//   - The administrator's reply (an ap_id without an ap_actor) loses its
//     ap_id: that IRI is the exporting blog's, under the id the comment
//     had there, and no other blog, nor this one under a new id, answers
//     for it. The reply stays a reply, no longer sent to the fediverse.
//   - A fediverse reply keeps its ap_id and ap_actor, http(s) IRIs of one
//     server, so that the Note's later Update or Delete still finds it.
//   - reply_to, the archive's id of an earlier comment of the same post,
//     becomes the id that comment has in the blog.
func (imp *importer) fediverse(f archiveFediverse, postID string) (archiveFediverse, []string) {
	var notes []string
	clean := func(field, v string) string {
		if why := iriTrouble(v); why != "" {
			notes = append(notes, field+" left out: "+why)
			return ""
		}
		return v
	}
	out := archiveFediverse{APID: clean("ap_id", f.APID), APActor: clean("ap_actor", f.APActor),
		AuthorHandle: clean("author_handle", f.AuthorHandle), AuthorURL: clean("author_url", f.AuthorURL)}
	if out.AuthorURL != "" && !webPage(out.AuthorURL) {
		notes = append(notes, "author_url left out: it is not an http(s) URL")
		out.AuthorURL = ""
	}
	switch {
	case out.APActor == "":
		out.APID = "" // the blog's own Note, or what is left of a broken one
	case out.APID == "":
		notes = append(notes, "ap_actor left out: it goes with the Note's ap_id")
		out.APActor = ""
	case !activitypub.SameHost(out.APID, out.APActor):
		notes = append(notes, "ap_id and ap_actor left out: they are not http(s) addresses of one server")
		out.APID, out.APActor = "", ""
	}
	if f.ReplyTo != "" {
		switch to, ok := imp.commentIDs[f.ReplyTo]; {
		case !ok:
			notes = append(notes, fmt.Sprintf("reply_to left out: the comment it answers (%q) is not before it in the archive", shorten(f.ReplyTo, 80)))
		case to.postID != postID:
			notes = append(notes, fmt.Sprintf("reply_to left out: the comment it answers (%q) is on another post", shorten(f.ReplyTo, 80)))
		default:
			out.ReplyTo = to.id
		}
	}
	return out, notes
}

// commentSeen remembers that the archive's comment archiveID is the
// blog's comment id on the post postID.
func (imp *importer) commentSeen(archiveID, id, postID string) {
	if archiveID == "" || len(archiveID) > maxArchiveIRI {
		return
	}
	if imp.commentIDs == nil {
		imp.commentIDs = map[string]commentRef{}
	}
	imp.commentIDs[archiveID] = commentRef{id: id, postID: postID}
}

// iriTrouble says what keeps v from being stored as one of a comment's
// fediverse fields; "" when nothing does.
func iriTrouble(v string) string {
	switch {
	case len(v) > maxArchiveIRI:
		return fmt.Sprintf("it is longer than %d bytes", maxArchiveIRI)
	case !utf8.ValidString(v):
		return "it is not valid UTF-8"
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return "it holds control characters"
		}
	}
	return ""
}

// webPage reports whether u is an absolute http(s) URL: a profile link a
// page may show.
func webPage(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" && p.Opaque == ""
}
