package blog

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"folio/sqlstore"
)

// dashboardRecent is how many comments and scheduled posts the blog
// dashboard lists.
const dashboardRecent = 5

// postCounts are the live posts by what the administrator sees of them: a
// published post whose time has not come is scheduled, not published.
type postStatusCounts struct {
	Draft, Scheduled, Published, Archived int
}

// scheduledPost is a post published in the future.
type scheduledPost struct {
	ID, Title   string
	PublishedAt time.Time
}

// consoleComment is a comment as the console shows it: with its post's
// slug, for the link to the site's post, and an excerpt.
type consoleComment struct {
	AdminComment
	PostSlug string
	Excerpt  string
}

type dashboardView struct {
	Posts     postStatusCounts
	Pending   int
	Recent    []consoleComment
	Scheduled []scheduledPost
	Storage   *StorageStats // nil: no file host to ask, or it failed
}

// handleConsoleDashboard is GET /console/blog: the blog at a glance
// (docs/console.md#blog-dashboard).
func (b *Blog) handleConsoleDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var d dashboardView
	var err error
	if d.Posts, err = b.postStatusCounts(ctx); err != nil {
		return err
	}
	stats, err := b.commentStats(ctx)
	if err != nil {
		return err
	}
	d.Pending = stats.Pending
	recent, _, err := b.listComments(ctx, commentFilter{}, span{limit: dashboardRecent})
	if err != nil {
		return err
	}
	if d.Recent, err = b.consoleComments(ctx, recent); err != nil {
		return err
	}
	if d.Scheduled, err = b.scheduledPosts(ctx, dashboardRecent); err != nil {
		return err
	}
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

// postStatusCounts counts the live posts by status, scheduled apart.
func (b *Blog) postStatusCounts(ctx context.Context) (postStatusCounts, error) {
	var c postStatusCounts
	rows, err := b.db.Query(ctx, `SELECT CASE WHEN status = 'published' AND published_at > $1 THEN 'scheduled' ELSE status END AS s,
		COUNT(*) FROM posts WHERE deleted_at IS NULL GROUP BY 1`, sqlstore.FromTime(b.now()))
	if err != nil {
		return c, fmt.Errorf("blog: count posts by status: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return c, fmt.Errorf("blog: count posts by status: %w", err)
		}
		switch status {
		case StatusDraft:
			c.Draft = n
		case "scheduled":
			c.Scheduled = n
		case StatusPublished:
			c.Published = n
		case StatusArchived:
			c.Archived = n
		}
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("blog: count posts by status: %w", err)
	}
	return c, nil
}

// scheduledPosts lists the next n posts due to appear, soonest first.
func (b *Blog) scheduledPosts(ctx context.Context, n int) ([]scheduledPost, error) {
	rows, err := b.db.Query(ctx, `SELECT p.id, p.title, p.published_at FROM posts p
		WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1
		ORDER BY p.published_at, p.id LIMIT $2`, sqlstore.FromTime(b.now()), n)
	if err != nil {
		return nil, fmt.Errorf("blog: scheduled posts: %w", err)
	}
	defer rows.Close()
	var out []scheduledPost
	for rows.Next() {
		var p scheduledPost
		var at int64
		if err := rows.Scan(&p.ID, &p.Title, &at); err != nil {
			return nil, fmt.Errorf("blog: scheduled posts: %w", err)
		}
		p.PublishedAt = sqlstore.Time(at)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: scheduled posts: %w", err)
	}
	return out, nil
}

// commentExcerpt is how many characters of a comment the dashboard shows.
const commentExcerpt = 120

// consoleComments adds to comments their posts' slugs and an excerpt.
func (b *Blog) consoleComments(ctx context.Context, comments []AdminComment) ([]consoleComment, error) {
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
		out[i] = consoleComment{AdminComment: c, PostSlug: slugs[c.PostID], Excerpt: commentLine(c.Content)}
	}
	return out, nil
}

// postSlugs maps the live posts among ids to their slugs.
func (b *Blog) postSlugs(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var w where
	ph := make([]string, 0, len(ids))
	for _, id := range ids {
		ph = append(ph, w.arg(id))
	}
	rows, err := b.db.Query(ctx, "SELECT id, slug FROM posts WHERE deleted_at IS NULL AND id IN ("+strings.Join(ph, ", ")+")", w.args...)
	if err != nil {
		return nil, fmt.Errorf("blog: post slugs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, slug string
		if err := rows.Scan(&id, &slug); err != nil {
			return nil, fmt.Errorf("blog: post slugs: %w", err)
		}
		out[id] = slug
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: post slugs: %w", err)
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
