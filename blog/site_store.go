package blog

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"folio/sqlstore"
)

// Read queries of the classic site that the API does not need. Every one
// shows only publicly visible content: published, live, and (for posts)
// published_at not in the future. siteChangedAt, last, reads what the
// site's Last-Modified and page cache depend on (site_changed.go).

// navPage is a published page as the navigation and sitemap list it.
type navPage struct {
	Title     string
	Slug      string
	UpdatedAt time.Time
}

// pageCond is the public rule for pages, as pageBy applies it: published
// and live.
const pageCond = "status = 'published' AND deleted_at IS NULL"

// navPages lists the published pages shown in the navigation.
func (b *Blog) navPages(ctx context.Context) ([]navPage, error) {
	return b.queryPages(ctx, "SELECT title, slug, updated_at FROM pages WHERE "+pageCond+
		" AND show_in_nav = $1 ORDER BY sort_order, created_at, id LIMIT 50", true)
}

// publicPages lists every published page, for the sitemap.
func (b *Blog) publicPages(ctx context.Context) ([]navPage, error) {
	return b.queryPages(ctx, "SELECT title, slug, updated_at FROM pages WHERE "+pageCond+
		" ORDER BY sort_order, created_at, id LIMIT $1", sitemapMaxPages)
}

func (b *Blog) queryPages(ctx context.Context, q string, args ...any) ([]navPage, error) {
	rows, err := b.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("blog: site pages: %w", err)
	}
	defer rows.Close()
	var out []navPage
	for rows.Next() {
		var p navPage
		var updated int64
		if err := rows.Scan(&p.Title, &p.Slug, &updated); err != nil {
			return nil, fmt.Errorf("blog: site pages: %w", err)
		}
		p.UpdatedAt = sqlstore.Time(updated)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: site pages: %w", err)
	}
	return out, nil
}

// siteTerm is a category or tag with its number of visible posts.
type siteTerm struct {
	Name  string
	Slug  string
	Count int
}

// Sidebar bounds.
const (
	sidebarMaxTags       = 40
	sidebarMaxCategories = 100
)

// usedCategories lists the categories that have visible posts, by name.
func (b *Blog) usedCategories(ctx context.Context, limit int) ([]siteTerm, error) {
	return b.queryTerms(ctx, `SELECT c.name, c.slug, COUNT(*) FROM categories c
		JOIN posts p ON p.category_id = c.id AND `+publicCond+`$1
		WHERE c.deleted_at IS NULL GROUP BY c.id, c.name, c.slug ORDER BY c.name, c.slug LIMIT $2`,
		sqlstore.FromTime(b.now()), limit)
}

// usedTags lists the most used tags of visible posts (at most limit), by
// name.
func (b *Blog) usedTags(ctx context.Context, limit int) ([]siteTerm, error) {
	return b.queryTerms(ctx, `SELECT name, slug, n FROM (
		SELECT t.name, t.slug, COUNT(*) AS n FROM tags t
		JOIN post_tags pt ON pt.tag_id = t.id
		JOIN posts p ON p.id = pt.post_id AND `+publicCond+`$1
		WHERE t.deleted_at IS NULL GROUP BY t.id, t.name, t.slug ORDER BY n DESC, t.name LIMIT $2) used
		ORDER BY name, slug`,
		sqlstore.FromTime(b.now()), limit)
}

func (b *Blog) queryTerms(ctx context.Context, q string, args ...any) ([]siteTerm, error) {
	rows, err := b.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("blog: site terms: %w", err)
	}
	defer rows.Close()
	var out []siteTerm
	for rows.Next() {
		var t siteTerm
		if err := rows.Scan(&t.Name, &t.Slug, &t.Count); err != nil {
			return nil, fmt.Errorf("blog: site terms: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: site terms: %w", err)
	}
	return out, nil
}

// siteFriend is an active friend link.
type siteFriend struct {
	Name, URL, Description, Logo string
}

// activeFriends lists the active friend links in their public order.
func (b *Blog) activeFriends(ctx context.Context) ([]siteFriend, error) {
	rows, err := b.db.Query(ctx, `SELECT name, url, description, logo FROM friend_links
		WHERE status = 'active' AND deleted_at IS NULL ORDER BY sort, created_at DESC, id LIMIT 100`)
	if err != nil {
		return nil, fmt.Errorf("blog: site friend links: %w", err)
	}
	defer rows.Close()
	var out []siteFriend
	for rows.Next() {
		var f siteFriend
		if err := rows.Scan(&f.Name, &f.URL, &f.Description, &f.Logo); err != nil {
			return nil, fmt.Errorf("blog: site friend links: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: site friend links: %w", err)
	}
	return out, nil
}

// feedPost is a visible post with what a feed needs.
type feedPost struct {
	PostItem
	ContentHTML string
}

// feedPosts lists the newest visible posts with their HTML.
func (b *Blog) feedPosts(ctx context.Context, limit int) ([]feedPost, error) {
	rows, err := b.db.Query(ctx, "SELECT "+postItemColumns+", p.content_html"+postFrom+
		" WHERE "+publicCond+"$1 ORDER BY p.published_at DESC, p.created_at DESC LIMIT $2",
		sqlstore.FromTime(b.now()), limit)
	if err != nil {
		return nil, fmt.Errorf("blog: feed posts: %w", err)
	}
	defer rows.Close()
	var out []feedPost
	for rows.Next() {
		var p feedPost
		if err := scanPost(rows, &p.PostItem, &p.ContentHTML); err != nil {
			return nil, fmt.Errorf("blog: feed posts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: feed posts: %w", err)
	}
	ptrs := make([]*PostItem, len(out))
	for i := range out {
		ptrs[i] = &out[i].PostItem
	}
	if err := b.loadTags(ctx, b.db, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}

// sitemapEntry is a slug and when its page last changed.
type sitemapEntry struct {
	Slug    string
	Updated time.Time
}

// Sitemap bounds: the whole sitemap stays within the protocol's 50,000.
const (
	sitemapMaxPosts = 40000
	sitemapMaxPages = 1000
	sitemapMaxTerms = 4000
)

// sitemapPosts lists every visible post's slug, newest first.
func (b *Blog) sitemapPosts(ctx context.Context) ([]sitemapEntry, error) {
	rows, err := b.db.Query(ctx, "SELECT p.slug, p.updated_at FROM posts p WHERE "+publicCond+
		"$1 ORDER BY p.published_at DESC, p.created_at DESC LIMIT $2", sqlstore.FromTime(b.now()), sitemapMaxPosts)
	if err != nil {
		return nil, fmt.Errorf("blog: sitemap posts: %w", err)
	}
	defer rows.Close()
	var out []sitemapEntry
	for rows.Next() {
		var e sitemapEntry
		var updated int64
		if err := rows.Scan(&e.Slug, &updated); err != nil {
			return nil, fmt.Errorf("blog: sitemap posts: %w", err)
		}
		e.Updated = sqlstore.Time(updated)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: sitemap posts: %w", err)
	}
	return out, nil
}

// siteChangedAt is when the classic site last changed as of now, and when
// it changes next without a write (zero: not known to). The last change is
// the newest of the last administrator change, the newest publication time
// that has passed (a scheduled post appears without any write), and since,
// the start of this process (templates and file settings change only with
// a restart). The next one is the first scheduled publication. Every page
// and feed shares them: each also shows the navigation and the settings.
func (b *Blog) siteChangedAt(ctx context.Context, now time.Time, since time.Time) (last, next time.Time, err error) {
	var stamp sql.NullString
	var published, scheduled sql.NullInt64
	err = b.db.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = $1),
		(SELECT MAX(p.published_at) FROM posts p WHERE `+publicCond+`$2),
		(SELECT MIN(p.published_at) FROM posts p WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $2)`,
		siteChangedKey, sqlstore.FromTime(now)).Scan(&stamp, &published, &scheduled)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	last = since
	if us, err := strconv.ParseInt(stamp.String, 10, 64); err == nil {
		if t := sqlstore.Time(us); t.After(last) {
			last = t
		}
	}
	if published.Valid {
		if t := sqlstore.Time(published.Int64); t.After(last) {
			last = t
		}
	}
	if scheduled.Valid {
		next = sqlstore.Time(scheduled.Int64)
	}
	return last, next, nil
}
