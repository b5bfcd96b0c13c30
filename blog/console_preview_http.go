package blog

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// previewPage is the data of templates/console/blog-preview.html.
type previewPage struct {
	Post    *Post
	Choices []previewChoice
	Hours   int // the lifetime selected
	// Link is set once a link has been made: the answer to the POST.
	Link *previewLink
	Copy templates.ConsoleCopy
}

// handleConsolePreviewLink is GET /console/blog/posts/{id}/preview: what a
// preview link is, and the form that makes one.
func (b consoleHandlers) handleConsolePreviewLink(w http.ResponseWriter, r *http.Request) error {
	p, err := b.previewPost(r)
	if err != nil {
		return err
	}
	return b.renderConsolePreview(w, r, http.StatusOK, p, defaultPreviewHours, nil, "")
}

// handleConsoleMakePreviewLink is POST /console/blog/posts/{id}/preview. The
// answer is the page with the link, not a redirect: the link opens the
// draft to anyone holding it, so it travels neither in a URL nor in a
// cookie (as a new API token, docs/console.md#tokens-and-clients).
func (b consoleHandlers) handleConsoleMakePreviewLink(w http.ResponseWriter, r *http.Request) error {
	p, err := b.previewPost(r)
	if err != nil {
		return err
	}
	raw := strings.TrimSpace(r.PostFormValue("expires_in_hours"))
	hours, err := strconv.Atoi(raw)
	if err != nil || hours < 1 || hours > maxPreviewHours {
		return b.renderConsolePreview(w, r, http.StatusUnprocessableEntity, p, defaultPreviewHours, nil,
			"Choose how long the link works: from 1 hour to 30 days.")
	}
	link, err := b.makePreviewLink(r.Context(), httpx.BaseURL(r), p.ID, hours)
	if err != nil {
		return previewError(err)
	}
	return b.renderConsolePreview(w, r, http.StatusOK, p, hours, link, "")
}

func (b consoleHandlers) renderConsolePreview(w http.ResponseWriter, r *http.Request, status int, p *Post, hours int, link *previewLink, problem string) error {
	title := "Preview link: " + p.Title
	v := b.console.View(w, r, title, "blog-posts")
	v.Error = problem
	d := previewPage{Post: p, Choices: previewChoices(), Hours: hours, Link: link}
	if link != nil {
		d.Copy = templates.ConsoleCopy{ID: "preview-url", Label: "Preview link", Value: link.URL}
	}
	v.Data = d
	b.console.Render(w, r, status, "blog-preview", v)
	return nil
}

// previewPost is the live post of the path's {id}, or the console's 404.
func (b consoleHandlers) previewPost(r *http.Request) (*Post, error) {
	notFound := httpx.E(http.StatusNotFound, "There is no such post.")
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, notFound
	}
	p, err := b.postBy(r.Context(), "id", id, false)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, notFound
	}
	return p, err
}

// previewError is httpError for the preview page: a deleted post is the
// console's 404 with a sentence.
func previewError(err error) error {
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.E(http.StatusNotFound, "There is no such post.")
	}
	return httpError(err)
}
