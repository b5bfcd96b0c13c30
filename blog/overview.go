package blog

import (
	"context"
	"time"
)

// Overview is the blog at a glance: what the blog's own dashboard and the
// administrator's home (the file host's, which cmd/folio hands it to)
// show (docs/console.md#the-dashboard).
type Overview struct {
	Posts     PostCounts
	Pending   int // comments waiting for moderation
	Recent    []OverviewComment
	Scheduled []ScheduledPost
}

// PostCounts are the live posts by what the administrator sees of them: a
// published post whose time has not come is scheduled, not published.
type PostCounts struct {
	Draft, Scheduled, Published, Archived int
}

// ScheduledPost is a post published in the future.
type ScheduledPost struct {
	ID, Title   string
	PublishedAt time.Time
}

// OverviewComment is a recent comment: its post's slug ("" when the post
// is gone) for the link to it on the site, and its start on one line.
type OverviewComment struct {
	Author, PostTitle, PostSlug string
	Excerpt, Status             string
	CreatedAt                   time.Time
}

// Overview counts the posts by status and the comments waiting, and lists
// the n newest comments of any status and the next n scheduled posts.
func (b *Blog) Overview(ctx context.Context, n int) (Overview, error) {
	var o Overview
	var err error
	if o.Posts, err = b.postStatusCounts(ctx); err != nil {
		return o, err
	}
	stats, err := b.commentStats(ctx)
	if err != nil {
		return o, err
	}
	o.Pending = stats.Pending
	recent, _, err := b.listComments(ctx, commentFilter{}, span{limit: n})
	if err != nil {
		return o, err
	}
	ids := make([]string, 0, len(recent))
	for _, c := range recent {
		ids = append(ids, c.PostID)
	}
	slugs, err := b.postSlugs(ctx, ids)
	if err != nil {
		return o, err
	}
	for _, c := range recent {
		o.Recent = append(o.Recent, OverviewComment{Author: c.Author, PostTitle: c.PostTitle, PostSlug: slugs[c.PostID],
			Excerpt: commentLine(c.Content), Status: c.Status, CreatedAt: c.CreatedAt})
	}
	if o.Scheduled, err = b.scheduledPosts(ctx, n); err != nil {
		return o, err
	}
	return o, nil
}
