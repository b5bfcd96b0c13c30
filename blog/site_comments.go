package blog

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/templates"
)

// comment takes the post page's comment form (no JavaScript): the same
// checks and the same 5-per-minute allowance as the API, which it shares.
// Success redirects back to the post (303) with a notice; a rejected
// submission shows the post again with the messages and what was typed.
func (s *Site) comment(w http.ResponseWriter, r *http.Request) (*answer, error) {
	ctx := r.Context()
	// Every submission counts, as every POST to the API does.
	allowed, wait := s.b.commentLimit.Allow(httpx.ClientIP(r))
	p, err := s.b.postBy(ctx, "slug", r.PathValue("slug"), true)
	if err != nil {
		return nil, err
	}
	var form templates.CommentForm
	tooLong := []string{fmt.Sprintf("The comment is too long to be sent (at most %d KiB in all).", maxFormBytes>>10)}
	if err := httpx.LimitBody(w, r, maxFormBytes); err != nil {
		form.Errors = tooLong
		return s.rejectComment(w, r, p, form, http.StatusRequestEntityTooLarge)
	}
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			form.Errors = tooLong
			return s.rejectComment(w, r, p, form, http.StatusRequestEntityTooLarge)
		}
		form.Errors = []string{"The form could not be read; please try again."}
		return s.rejectComment(w, r, p, form, http.StatusBadRequest)
	}
	form.Author = r.PostForm.Get("author")
	form.Email = r.PostForm.Get("email")
	form.Content = r.PostForm.Get("content")
	if !allowed {
		secs := max(1, int(math.Ceil(wait.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		form.Errors = []string{fmt.Sprintf("Too many comments from your address; please wait %d seconds and send again.", secs)}
		return s.rejectComment(w, r, p, form, http.StatusTooManyRequests)
	}
	in := commentInput{Author: form.Author, Email: form.Email, Content: form.Content}
	if _, err := s.b.submitComment(ctx, p.ID, in, httpx.ClientIP(r), r.UserAgent()); err != nil {
		var he *httpx.Error
		if !errors.As(httpError(err), &he) || he.Status >= 500 {
			return nil, err
		}
		if he.Status == http.StatusNotFound {
			return nil, err // the post vanished meanwhile
		}
		form.Errors = []string{siteFormMessage(he)}
		return s.rejectComment(w, r, p, form, he.Status)
	}
	http.Redirect(w, r, "/posts/"+url.PathEscape(p.Slug)+"?comment=pending#comment-form", http.StatusSeeOther)
	return nil, nil
}

// siteFormMessage turns a validation error ("email: must be a valid email
// address") into a sentence for the form.
func siteFormMessage(he *httpx.Error) string {
	field, msg, ok := strings.Cut(he.Msg, ": ")
	if !ok {
		return sentenceCase(he.Msg) + "."
	}
	names := map[string]string{"author": "Name", "email": "Email", "content": "Comment"}
	if n, ok := names[field]; ok {
		field = n
	}
	return field + " " + msg + "."
}

func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// rejectComment shows the post again with the form's errors, never cached.
func (s *Site) rejectComment(w http.ResponseWriter, r *http.Request, p *Post, form templates.CommentForm, status int) (*answer, error) {
	v, err := s.postView(r, p, form)
	if err != nil {
		return nil, err
	}
	v.Meta.NoIndex = true
	// Show the comment area even on a post that hides it, so the reason
	// ("comments are closed") is on the page.
	v.Post.ShowComments = true
	a, err := s.renderHTML(templates.KindPost, v)
	if err != nil {
		return nil, err
	}
	a.status = status
	w.Header().Set("Cache-Control", "no-store")
	return a, nil
}

// siteComments are a post's approved comments as the post page shows them:
// a fediverse author's profile linked only when it is an http(s) URL, and
// a reply naming the comment it answers when that one is shown too
// (docs/federation.md#moderation).
func siteComments(comments []PublicComment) []templates.Comment {
	authors := make(map[string]string, len(comments))
	for _, c := range comments {
		authors[c.ID] = c.Author
	}
	out := make([]templates.Comment, 0, len(comments))
	for _, c := range comments {
		tc := templates.Comment{ID: c.ID, Author: c.Author, Content: c.Content, CreatedAt: c.CreatedAt,
			Fediverse: c.Fediverse && !c.ownReply(), AuthorHandle: c.AuthorHandle, AuthorURL: webURL(c.AuthorURL)}
		if a, ok := authors[c.ReplyTo]; ok && c.ReplyTo != "" {
			tc.ReplyTo, tc.ReplyToAuthor = c.ReplyTo, a
		}
		out = append(out, tc)
	}
	return out
}

// webURL is u when it is an absolute http or https URL, else "": a remote
// server's profile link must not become a javascript: or data: link.
func webURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return u
}
