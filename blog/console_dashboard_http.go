package blog

import (
	"context"
	"net/http"
)

// dashboardRecent is how many comments and scheduled posts the blog
// dashboard lists.
const dashboardRecent = 5

// consoleComment is a comment as the console shows it: with its post's
// slug, for the link to the site's post, and an excerpt.
type consoleComment struct {
	AdminComment
	PostSlug string
	Excerpt  string
	// Remote: a reply from the fediverse (not the administrator's own);
	// Profile its author's profile when that is an http(s) URL.
	Remote  bool
	Profile string
}

type dashboardView struct {
	Overview
	Storage *StorageStats // nil: no file host to ask, or it failed
}

// handleConsoleDashboard is GET /console/blog: the blog at a glance
// (docs/console.md#blog-dashboard).
func (b consoleHandlers) handleConsoleDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	o, err := b.Overview(ctx, dashboardRecent)
	if err != nil {
		return err
	}
	d := dashboardView{Overview: o}
	if b.storage != nil {
		// The file host's numbers are a side panel: when they cannot be
		// had, the blog's own still show.
		if st, err := b.storage.StorageUsage(ctx); err == nil {
			d.Storage = &st
		} else {
			b.logger.Warn("blog: console dashboard: storage usage", "err", err)
		}
	}
	v := b.console.View(w, r, "Blog", "blog")
	v.Data = d
	b.console.Render(w, r, http.StatusOK, "blog-dashboard", v)
	return nil
}

// commentExcerpt is how many characters of a comment the dashboard shows.
const commentExcerpt = 120

// consoleComments adds to comments their posts' slugs and an excerpt.
func (b consoleHandlers) consoleComments(ctx context.Context, comments []AdminComment) ([]consoleComment, error) {
	ids := make([]string, 0, len(comments))
	for _, c := range comments {
		ids = append(ids, c.PostID)
	}
	slugs, err := b.postSlugs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]consoleComment, len(comments))
	for i, c := range comments {
		out[i] = consoleComment{AdminComment: c, PostSlug: slugs[c.PostID], Excerpt: commentLine(c.Content),
			Remote: c.Fediverse && !c.ownReply(), Profile: webURL(c.AuthorURL)}
	}
	return out, nil
}

// commentLine is the start of a comment on one line, with an ellipsis
// when cut.
func commentLine(s string) string {
	s = collapseSpace(s)
	if cut := excerpt(s, commentExcerpt); cut != s {
		return cut + "…"
	}
	return s
}
