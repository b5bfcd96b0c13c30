package blog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// Preview links (docs/console.md#preview-links) show a post of any status
// as the classic theme renders it, to whoever holds the link, until it
// expires. Nothing is stored: the link is a value auth seals, whose
// payload is the post's id, so a link cannot be revoked on its own; it
// ends with its expiry, with the post's deletion, or with a new
// admin.session_secret, from which the sealing key derives.

// previewPurpose names the sealed value of a preview link; its version
// changes if the payload ever does.
const previewPurpose = "folio post preview v1"

// Lifetimes of a preview link, in hours: the API takes any whole number in
// range, the console offers previewChoices.
const (
	defaultPreviewHours = 168
	maxPreviewHours     = 720
)

// previewChoice is a lifetime the console offers.
type previewChoice struct {
	Hours int
	Label string
}

func previewChoices() []previewChoice {
	return []previewChoice{{1, "1 hour"}, {24, "1 day"}, {defaultPreviewHours, "7 days"}, {maxPreviewHours, "30 days"}}
}

// previewLink is a made link: its absolute URL and when it stops working.
type previewLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// makePreviewLink seals a link to the live post id, valid for hours from
// now, under base (the server's own origin: the preview page is served
// here whatever site.site_url says, headless mode included).
func (b *Blog) makePreviewLink(ctx context.Context, base, id string, hours int) (*previewLink, error) {
	if hours < 1 || hours > maxPreviewHours {
		return nil, invalid("expires_in_hours", "must be a whole number of hours from 1 to "+strconv.Itoa(maxPreviewHours))
	}
	if _, err := b.postBy(ctx, "id", id, false); err != nil {
		return nil, err
	}
	exp := b.now().Add(time.Duration(hours) * time.Hour).Truncate(time.Second)
	tok := b.auth.Seal(previewPurpose, id, exp)
	if tok == "" {
		return nil, fmt.Errorf("blog: seal a preview link for post %s", id)
	}
	return &previewLink{URL: base + "/preview/" + tok, ExpiresAt: exp.UTC()}, nil
}

// previewLinkInput is the optional body of POST
// /api/v1/admin/posts/{id}/preview-link.
type previewLinkInput struct {
	ExpiresInHours *int `json:"expires_in_hours"`
}

// handleCreatePreviewLink is POST /api/v1/admin/posts/{id}/preview-link.
// The body is optional: none, or no expires_in_hours, is the default
// lifetime.
func (b *Blog) handleCreatePreviewLink(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := httpx.LimitBody(w, r, httpx.MaxJSONBody); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpx.Error{Status: http.StatusRequestEntityTooLarge, Msg: httpx.TooLarge(httpx.MaxJSONBody).Msg, Err: err}
		}
		return &httpx.Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
	}
	hours := defaultPreviewHours
	if len(bytes.TrimSpace(body)) > 0 {
		var in previewLinkInput
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := httpx.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		if in.ExpiresInHours != nil {
			hours = *in.ExpiresInHours
		}
	}
	link, err := b.makePreviewLink(r.Context(), httpx.BaseURL(r), id, hours)
	if err != nil {
		return httpError(err)
	}
	httpx.BlogAPI.OK(w, http.StatusCreated, link)
	return nil
}

// preview is GET /preview/{token}, in both render modes: a headless
// blog's author still wants to see the classic rendering. The answer is
// never cached, here or anywhere, never indexed, and sends no Referer, so
// that the token does not leave with a link the reader follows. An expired
// link is 410 with a page that says so; anything else that is not a live
// link (forged, altered, sealed for another use, its post deleted) is the
// site's 404 page.
func (s *Site) preview(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Referrer-Policy", "no-referrer")
	if s.b.auth == nil {
		s.errorPage(w, r, http.StatusNotFound)
		return
	}
	id, exp, ok := s.b.auth.OpenAny(previewPurpose, r.PathValue("token"))
	if !ok {
		s.errorPage(w, r, http.StatusNotFound)
		return
	}
	now := s.b.now()
	if !now.Before(exp) {
		s.previewExpired(w, r)
		return
	}
	p, err := s.b.postBy(r.Context(), "id", id, false)
	if errors.Is(err, sqlstore.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	body, err := s.renderPreview(r, p, exp, now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writePreview(w, r, http.StatusOK, body)
}

// renderPreview renders p with the post template, its comments left out
// (a preview shows the post, not its discussion, and has no form), under
// the preview banner.
func (s *Site) renderPreview(r *http.Request, p *Post, until, now time.Time) ([]byte, error) {
	shown := *p
	shown.ShowComments = false
	v, err := s.postView(r, &shown, templates.CommentForm{})
	if err != nil {
		return nil, err
	}
	v.Meta.NoIndex = true
	pv := &templates.Preview{State: p.Status, Until: until}
	if p.Status == StatusPublished && p.PublishedAt != nil {
		if p.PublishedAt.After(now) {
			pv.State, pv.PublishAt = "scheduled", *p.PublishedAt
		} else {
			pv.PublicURL = "/posts/" + url.PathEscape(p.Slug)
		}
	}
	v.Preview = pv
	return s.engine.Render(templates.KindPost, v)
}

// previewExpired answers 410 with the page that asks for a new link.
func (s *Site) previewExpired(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r, "Preview link expired")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v.Meta.NoIndex = true
	v.Meta.Canonical = "" // the page's own address is the token
	body, err := s.engine.Render(templates.KindPreviewExpired, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writePreview(w, r, http.StatusGone, body)
}

func (s *Site) writePreview(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Security-Policy", siteCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
