package blog

import (
	"context"
	"net/http"
	"strings"
	"time"

	"folio/blog/linediff"
	"folio/httpx"
	"folio/templates"
)

// The console's revision pages (docs/console.md#revisions): a post's or
// page's replaced versions, one of them compared with the current version,
// and its restore, which saves it through the same path as the API.

// revisionsPageSize is how many revisions the list shows at once.
const revisionsPageSize = 20

// revisionTarget is the live post or page a revision page is about.
type revisionTarget struct {
	Kind    string // kindPost or kindPage
	ID      string
	Title   string
	Base    string // its editor, /console/blog/{posts,pages}/{id}
	Section string
	Current any // *postSnapshot or *pageSnapshot of the current version
}

// consoleRevisionTarget loads the post or page {id} names; unknown: 404.
func (b consoleHandlers) consoleRevisionTarget(r *http.Request, kind string) (*revisionTarget, error) {
	notFound := httpx.E(http.StatusNotFound, "There is no such "+kind+".")
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, notFound
	}
	t := &revisionTarget{Kind: kind, ID: id}
	if kind == kindPage {
		p, err := b.pageBy(r.Context(), "id", id, false)
		if err != nil {
			return nil, orNotFound(err, notFound)
		}
		t.Title, t.Base, t.Section, t.Current = p.Title, "/console/blog/pages/"+id, "blog-pages", snapshotOfPage(p)
		return t, nil
	}
	p, err := b.postBy(r.Context(), "id", id, false)
	if err != nil {
		return nil, orNotFound(err, notFound)
	}
	t.Title, t.Base, t.Section, t.Current = p.Title, "/console/blog/posts/"+id, "blog-posts", snapshotOfPost(p)
	return t, nil
}

// orNotFound is notFound for a missing row, err otherwise.
func orNotFound(err, notFound error) error {
	if he := httpx.AsError(httpError(err)); he.Status == http.StatusNotFound {
		return notFound
	}
	return err
}

type revisionsView struct {
	Target *revisionTarget
	Items  []RevisionItem
	Pager  *templates.ConsolePager
}

// handleConsoleRevisions is GET /console/blog/{posts,pages}/{id}/revisions.
func (b consoleHandlers) handleConsoleRevisions(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := b.consoleRevisionTarget(r, kind)
		if err != nil {
			return err
		}
		p, err := httpx.ParsePaging(r, "page_size", revisionsPageSize, 100)
		if err != nil {
			return err
		}
		items, total, err := b.listRevisions(r.Context(), kind, t.ID, spanOf(p))
		if err != nil {
			return err
		}
		v := b.console.View(w, r, "Revisions of “"+t.Title+"”", t.Section)
		v.Data = revisionsView{Target: t, Items: items,
			Pager: templates.NewConsolePager(t.Base+"/revisions", r.URL.Query(), p.Page, p.Size, total)}
		b.console.Render(w, r, http.StatusOK, "blog-revisions", v)
		return nil
	}
}

// fieldChange is a field whose value differs between a revision and now.
type fieldChange struct {
	Name, Then, Now string
}

type revisionView struct {
	Target     *revisionTarget
	ID         string
	CreatedAt  time.Time
	Title      string
	Changes    []fieldChange
	Rows       []linediff.Row
	SameText   bool // the Markdown is the same
	Comparable bool // false: too different to compare line by line
}

// loadConsoleRevision loads {rev} of the target; another post's or page's
// revision is 404, as a missing one.
func (b consoleHandlers) loadConsoleRevision(ctx context.Context, t *revisionTarget, revID string) (any, error) {
	notFound := httpx.E(http.StatusNotFound, "There is no such revision.")
	var rev any
	var err error
	if t.Kind == kindPage {
		rev, err = b.pageRevision(ctx, t.ID, revID)
	} else {
		rev, err = b.postRevision(ctx, t.ID, revID)
	}
	if err != nil {
		return nil, orNotFound(err, notFound)
	}
	return rev, nil
}

// renderRevision shows a revision against the current version; problem
// says why a restore was refused.
func (b consoleHandlers) renderRevision(w http.ResponseWriter, r *http.Request, status int, t *revisionTarget, rev any, problem string) {
	rv := revisionView{Target: t}
	var thenText, nowText string
	field := func(name, then, now string) {
		if then != now {
			rv.Changes = append(rv.Changes, fieldChange{Name: name, Then: then, Now: now})
		}
	}
	switch rev := rev.(type) {
	case *PostRevision:
		cur := t.Current.(*postSnapshot)
		rv.ID, rv.CreatedAt, rv.Title = rev.ID, rev.CreatedAt, rev.Title
		field("Title", rev.Title, cur.Title)
		field("Slug", rev.Slug, cur.Slug)
		field("Summary", rev.Summary, cur.Summary)
		field("Status", rev.Status, cur.Status)
		field("Published", timeText(rev.PublishedAt), timeText(cur.PublishedAt))
		thenText, nowText = rev.ContentMarkdown, cur.ContentMarkdown
	case *PageRevision:
		cur := t.Current.(*pageSnapshot)
		rv.ID, rv.CreatedAt, rv.Title = rev.ID, rev.CreatedAt, rev.Title
		field("Title", rev.Title, cur.Title)
		field("Slug", rev.Slug, cur.Slug)
		field("Status", rev.Status, cur.Status)
		field("Template", rev.Template, cur.Template)
		thenText, nowText = rev.ContentMarkdown, cur.ContentMarkdown
	}
	rv.SameText = thenText == nowText
	if !rv.SameText {
		script, ok := linediff.Diff(linediff.Lines(thenText), linediff.Lines(nowText), linediff.MaxEdits, linediff.MaxLines)
		rv.Comparable = ok
		if ok {
			rv.Rows = linediff.Rows(script)
		}
	}
	v := b.console.View(w, r, "Revision of “"+t.Title+"” from "+rv.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), t.Section)
	v.Error = problem
	v.Data = rv
	b.console.Render(w, r, status, "blog-revision", v)
}

func timeText(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// handleConsoleRevision is GET /console/blog/{posts,pages}/{id}/revisions/{rev}.
func (b consoleHandlers) handleConsoleRevision(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, rev, err := b.consoleRevision(r, kind)
		if err != nil {
			return err
		}
		b.renderRevision(w, r, http.StatusOK, t, rev, "")
		return nil
	}
}

func (b consoleHandlers) consoleRevision(r *http.Request, kind string) (*revisionTarget, any, error) {
	t, err := b.consoleRevisionTarget(r, kind)
	if err != nil {
		return nil, nil, err
	}
	revID, err := httpx.PathID(r, "rev")
	if err != nil {
		return nil, nil, httpx.E(http.StatusNotFound, "There is no such revision.")
	}
	rev, err := b.loadConsoleRevision(r.Context(), t, revID)
	if err != nil {
		return nil, nil, err
	}
	return t, rev, nil
}

// handleConsoleRestoreRevision is POST .../revisions/{rev}/restore: the
// revision saved as the new state, then back to the editor. A refused
// restore (its slug taken, its page template gone) shows the revision
// again with the reason and the API's status.
func (b consoleHandlers) handleConsoleRestoreRevision(kind string) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, rev, err := b.consoleRevision(r, kind)
		if err != nil {
			return err
		}
		if _, err := b.restore(r.Context(), t.ID, rev); err != nil {
			he := httpx.AsError(err)
			if he.Status == http.StatusConflict || he.Status == http.StatusUnprocessableEntity {
				b.renderRevision(w, r, he.Status, t, rev, restoreProblem(he))
				return nil
			}
			return err
		}
		b.markSiteChanged(r.Context())
		when := ""
		switch rev := rev.(type) {
		case *PostRevision:
			when = rev.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
		case *PageRevision:
			when = rev.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		b.console.Redirect(w, r, t.Base, "Restored the version of "+when+".")
		return nil
	}
}

// restoreProblem says why a restore was refused, in the console's words.
func restoreProblem(he *httpx.Error) string {
	if he.Status == http.StatusConflict {
		return "This version cannot be restored: another one now has its slug. Change that one's slug first, or edit this one by hand."
	}
	return "This version cannot be restored: " + strings.TrimSuffix(he.Msg, ".") + "."
}
