package blog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"folio/sqlstore"
)

const postItemColumns = `p.id, p.title, p.slug, p.summary, p.summary_source, p.status, p.cover_image,
	p.published_at, p.show_comments, p.category_id, c.name, c.slug, p.created_at, p.updated_at`

const postCategoryJoin = ` LEFT JOIN categories c ON c.id = p.category_id AND c.deleted_at IS NULL`

const postFrom = ` FROM posts p` + postCategoryJoin

// scanPost scans postItemColumns into it, then any extra destinations.
func scanPost(row interface{ Scan(...any) error }, it *PostItem, extra ...any) error {
	var published *int64
	var catID, catName, catSlug *string
	var created, updated int64
	dest := append([]any{&it.ID, &it.Title, &it.Slug, &it.Summary, &it.SummarySource, &it.Status, &it.CoverImage,
		&published, &it.ShowComments, &catID, &catName, &catSlug, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	it.PublishedAt = sqlstore.NullTime(published)
	it.CreatedAt, it.UpdatedAt = sqlstore.Time(created), sqlstore.Time(updated)
	it.Category = nil
	if catID != nil && catName != nil && catSlug != nil {
		it.CategoryID = *catID
		it.Category = &TermRef{ID: *catID, Name: *catName, Slug: *catSlug}
	}
	it.Tags = []TermRef{}
	return nil
}

// publicCond is the visibility rule of docs/api.md#posts. The literals match
// the partial indexes posts_public_*, which a bound parameter would not.
const publicCond = publicLive + " AND p.published_at <= "

const publicLive = "p.status = 'published' AND p.deleted_at IS NULL"

// postWhere returns the conditions of the posts f selects at now; with
// after, only of those that follow it in the list's order.
func (b *Blog) postWhere(f postFilter, now time.Time, after *postKey) where {
	var w where
	switch {
	case f.Public && after != nil:
		// The anchor is a visible post, so what follows it was published
		// before now too. Without the bound on published_at alone SQLite
		// seeks to the anchor in posts_public_*: given both, it ranges on
		// that one only and walks from now.
		w.add(publicLive+" AND (p.published_at, p.created_at, p.id) < (?, ?, ?)", after.published, after.created, after.id)
	case f.Public:
		w.conds = append(w.conds, publicCond+w.arg(sqlstore.FromTime(now)))
	case after != nil:
		w.add("p.deleted_at IS NULL AND (p.created_at, p.id) < (?, ?)", after.created, after.id)
	default:
		w.add("p.deleted_at IS NULL")
	}
	if f.Status != "" {
		w.add("p.status = ?", f.Status)
	}
	switch f.When {
	case whenScheduled:
		w.add("p.status = 'published' AND p.published_at > ?", sqlstore.FromTime(now))
	case whenVisible:
		w.add("p.status = 'published' AND p.published_at <= ?", sqlstore.FromTime(now))
	}
	if f.CategoryID != "" {
		w.add("p.category_id = ?", f.CategoryID)
	}
	if f.TagID != "" {
		w.add("EXISTS (SELECT 1 FROM post_tags pt WHERE pt.post_id = p.id AND pt.tag_id = ?)", f.TagID)
	}
	if f.Keyword != "" {
		ph := w.arg(sqlstore.LikePattern(f.Keyword))
		d := b.db.Dialect()
		w.conds = append(w.conds, "("+d.ILike("p.title", ph)+" OR "+d.ILike("p.summary", ph)+" OR "+d.ILike("p.content_markdown", ph)+")")
	}
	return w
}

// postOrder is the order of a list: newest publication first for the
// public one, newest created first for the administrator's. The id breaks
// ties, so that every post has one place and pages neither repeat nor skip
// one.
func postOrder(public bool) string {
	if public {
		// published_at is never NULL for a visible post, so this is
		// COALESCE(published_at, created_at) DESC, created_at DESC.
		return " ORDER BY p.published_at DESC, p.created_at DESC, p.id DESC"
	}
	return " ORDER BY p.created_at DESC, p.id DESC"
}

// bumpPostsVersion marks the posts as changed.
func bumpPostsVersion(ctx context.Context, q sqlstore.Querier) error {
	if err := setMeta(ctx, q, postsVersionKey, sqlstore.NewID()); err != nil {
		return fmt.Errorf("blog: mark posts changed: %w", err)
	}
	return nil
}

// postsVersion reads the posts version; "" before the first change.
func (b *Blog) postsVersion(ctx context.Context) (string, error) {
	var version string
	err := b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", postsVersionKey).Scan(&version)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return "", fmt.Errorf("blog: posts version: %w", err)
	}
	return version, nil
}

// countPosts counts the posts w selects.
func (b *Blog) countPosts(ctx context.Context, w where) (int, error) {
	var n int
	if err := b.db.QueryRow(ctx, "SELECT COUNT(*) FROM posts p"+w.sql(), w.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("blog: count posts: %w", err)
	}
	return n, nil
}

// nextPublication is the publication time of the first post dated after
// now; zero when there is none.
func (b *Blog) nextPublication(ctx context.Context, now time.Time) (time.Time, error) {
	var next *int64
	if err := b.db.QueryRow(ctx, `SELECT MIN(p.published_at) FROM posts p
			WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1`, sqlstore.FromTime(now)).Scan(&next); err != nil {
		return time.Time{}, fmt.Errorf("blog: next publication: %w", err)
	}
	if next == nil {
		return time.Time{}, nil
	}
	return sqlstore.Time(*next), nil
}

// postKeyAt returns the key of the post skip places into the list w
// selects, in its order (postOrder); sqlstore.ErrNotFound past its end.
func (b *Blog) postKeyAt(ctx context.Context, w where, public bool, skip int) (postKey, error) {
	var k postKey
	err := b.db.QueryRow(ctx, "SELECT p.published_at, p.created_at, p.id FROM posts p"+w.sql()+postOrder(public)+
		" LIMIT 1 OFFSET "+w.arg(skip), w.args...).Scan(&k.published, &k.created, &k.id)
	return k, err
}

// postPage returns the query of one page of the posts w selects, in order,
// and its arguments. Its subquery pages the ids alone, which one of the
// posts_*_paging indexes answers without reading a post. With a version,
// the page is empty unless the posts are still at that version: its rows
// are found from an anchor valid only there.
func postPage(w where, public bool, pg span, version *string) (string, []any) {
	w.args = slices.Clip(w.args) // the caller's w stays as it was
	order := postOrder(public)
	ids := "SELECT p.id FROM posts p" + w.sql() + order + " LIMIT " + w.arg(pg.limit) + " OFFSET " + w.arg(pg.offset)
	q := "SELECT " + postItemColumns + " FROM (" + ids + ") page JOIN posts p ON p.id = page.id" + postCategoryJoin
	if version != nil {
		q += " WHERE COALESCE((SELECT m.value FROM meta m WHERE m.key = " + w.arg(postsVersionKey) + "), '') = " + w.arg(*version)
	}
	return q + order, w.args
}

// listPosts returns one page of posts and the total. The page's ids come
// first, from a covering index, starting from the nearest cached anchor
// before the page; only the page's posts are then read whole
// (docs/design.md#paging).
func (b *Blog) listPosts(ctx context.Context, f postFilter, pg span) ([]PostItem, int, error) {
	now := b.now()
	w := b.postWhere(f, now, nil)
	total, version, err := b.postTotal(ctx, f, w, now)
	if err != nil {
		return nil, 0, err
	}
	if total == 0 || pg.offset >= total {
		return []PostItem{}, total, nil
	}
	after, at, anchored, err := b.postAnchor(ctx, f, now, version, pg.offset)
	if err != nil {
		return nil, 0, err
	}
	var items []PostItem
	if anchored {
		q, args := postPage(b.postWhere(f, now, &after), f.Public, span{limit: pg.limit, offset: pg.offset - at}, &version)
		if items, err = b.queryPosts(ctx, q, args); err != nil {
			return nil, 0, err
		}
	}
	if len(items) == 0 {
		// Not anchored, or the posts changed since the version was read:
		// the plain way, from the list's start.
		if anchored {
			b.logger.Debug("blog: post list anchor out of date, paging from the start", "offset", pg.offset)
		}
		q, args := postPage(w, f.Public, pg, nil)
		if items, err = b.queryPosts(ctx, q, args); err != nil {
			return nil, 0, err
		}
	}
	ptrs := make([]*PostItem, len(items))
	for i := range items {
		ptrs[i] = &items[i]
	}
	if err := b.loadTags(ctx, b.db, ptrs); err != nil {
		return nil, 0, err
	}
	return items, total, nil
}

// queryPosts runs a query of post items.
func (b *Blog) queryPosts(ctx context.Context, q string, args []any) ([]PostItem, error) {
	rows, err := b.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("blog: list posts: %w", err)
	}
	defer rows.Close()
	items := []PostItem{}
	for rows.Next() {
		var it PostItem
		if err := scanPost(rows, &it); err != nil {
			return nil, fmt.Errorf("blog: list posts: %w", err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: list posts: %w", err)
	}
	return items, nil
}

// loadTags fills the tags of several posts with one query.
func (b *Blog) loadTags(ctx context.Context, q sqlstore.Querier, posts []*PostItem) error {
	if len(posts) == 0 {
		return nil
	}
	byID := make(map[string]*PostItem, len(posts))
	args := make([]any, len(posts))
	for i, p := range posts {
		byID[strings.ToLower(p.ID)] = p
		args[i] = p.ID
	}
	rows, err := q.Query(ctx, `SELECT pt.post_id, t.id, t.name, t.slug FROM post_tags pt
		JOIN tags t ON t.id = pt.tag_id AND t.deleted_at IS NULL
		WHERE pt.post_id IN (`+sqlstore.Placeholders(1, len(args))+`) ORDER BY t.name, t.id`, args...)
	if err != nil {
		return fmt.Errorf("blog: load tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var postID string
		var t TermRef
		if err := rows.Scan(&postID, &t.ID, &t.Name, &t.Slug); err != nil {
			return fmt.Errorf("blog: load tags: %w", err)
		}
		if p := byID[strings.ToLower(postID)]; p != nil {
			p.Tags = append(p.Tags, t)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("blog: load tags: %w", err)
	}
	return nil
}

// postBy loads one live post by id or slug (column "id" or "slug"); with
// public, only when it is publicly visible. sqlstore.ErrNotFound otherwise.
func (b *Blog) postBy(ctx context.Context, column, value string, public bool) (*Post, error) {
	if column == "id" && !sqlstore.ValidID(value) {
		return nil, sqlstore.ErrNotFound
	}
	var w where
	w.add("p."+column+" = ?", value)
	if public {
		w.conds = append(w.conds, publicCond+w.arg(sqlstore.FromTime(b.now())))
	} else {
		w.add("p.deleted_at IS NULL")
	}
	var p Post
	var toc string
	err := scanPost(b.db.QueryRow(ctx, "SELECT "+postItemColumns+", p.content_markdown, p.content_html, p.toc"+postFrom+w.sql(), w.args...),
		&p.PostItem, &p.ContentMarkdown, &p.ContentHTML, &toc)
	if err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("blog: load post: %w", err)
	}
	if b.settings.Get(ctx).Post.EnableTOC {
		p.TOC = []TOCEntry{}
		if err := json.Unmarshal([]byte(toc), &p.TOC); err != nil {
			return nil, fmt.Errorf("blog: post %s toc: %w", p.ID, err)
		}
	}
	if err := b.loadTags(ctx, b.db, []*PostItem{&p.PostItem}); err != nil {
		return nil, err
	}
	return &p, nil
}

// savePost creates (cur nil) or replaces a post and returns its id. The
// caller calls postSaved once it has read the post back, so that its answer
// shows the post as saved, not as a background job may have changed it.
func (b *Blog) savePost(ctx context.Context, cur *Post, in postInput) (string, error) {
	if err := in.validate(); err != nil {
		return "", err
	}
	html, err := b.render(ctx, in.ContentMarkdown)
	if err != nil {
		return "", fmt.Errorf("blog: render post: %w", err)
	}
	now := b.now()

	// The summary: a hand-written one stays; an empty one is derived from
	// the text. Sending back the summary the server made (a client that
	// PUTs what it read) does not make it hand-written.
	source := summaryManual
	switch {
	case in.Summary == "":
		source = summaryAuto
	case cur != nil && in.Summary == cur.Summary && cur.SummarySource != summaryManual:
		source = cur.SummarySource
		if source == summaryAI && in.ContentMarkdown != cur.ContentMarkdown {
			source = summaryAuto
		}
	}
	if source == summaryAuto {
		in.Summary = excerpt(html.Plain, b.settings.Get(ctx).Post.SummaryLength)
	}

	// A post readers may have linked to keeps its address when the writer
	// leaves the slug empty; only a slug given on purpose moves it
	// (docs/blog-api.md#slugs). A draft never published follows its title.
	if in.Slug == "" && cur != nil && cur.wasPublished(now) {
		in.Slug = cur.Slug
	}
	if in.Status == StatusPublished && in.PublishedAt == nil {
		if cur != nil && cur.PublishedAt != nil {
			in.PublishedAt = cur.PublishedAt
		} else {
			in.PublishedAt = &now
		}
	}
	id := sqlstore.NewID()
	if cur != nil {
		id = cur.ID
	}
	sp := storedPost{id: id, create: cur == nil, in: in, html: html, source: source, created: now, updated: now}
	if cur != nil {
		sp.replaced = replaced[postSnapshot]{prev: snapshotOfPost(cur), keep: b.settings.Get(ctx).Post.RevisionsKept}
	}
	err = retryDerivedSlug(in.Slug, func() error {
		return b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
			return storePost(ctx, tx, sp)
		})
	})
	if err != nil {
		return "", fmt.Errorf("blog: save post: %w", err)
	}
	return id, nil
}

// storedPost is one post as storePost writes it: a validated input, its
// rendering, where its summary came from, and its times (created is used
// only when the post is created).
type storedPost struct {
	id               string
	create           bool
	in               postInput
	html             rendered
	source           string
	created, updated time.Time
	// replaced is the version an update replaces, kept as a revision;
	// its prev is nil for a create or an import.
	replaced replaced[postSnapshot]
}

// storePost writes a post, its tags and the posts version inside tx: the
// one write path of the API and of imports, so that the post lists' cached
// counts follow either.
func storePost(ctx context.Context, tx *sqlstore.Tx, p storedPost) error {
	in := p.in
	toc, _ := json.Marshal(p.html.TOC) // a slice of plain structs
	var category any
	if in.CategoryID != "" {
		category = in.CategoryID
		var n int
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM categories WHERE id = $1 AND deleted_at IS NULL", in.CategoryID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return invalid("category_id", "category does not exist")
		}
	}
	if len(in.TagIDs) > 0 {
		args := make([]any, len(in.TagIDs))
		for i, t := range in.TagIDs {
			args[i] = t
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM tags WHERE deleted_at IS NULL AND id IN ("+sqlstore.Placeholders(1, len(args))+")", args...).Scan(&n); err != nil {
			return err
		}
		if n != len(in.TagIDs) {
			return invalid("tag_ids", "a tag does not exist")
		}
	}
	slug, err := freeSlug(ctx, tx, "posts", p.id, in.Slug, in.Title)
	if err != nil {
		return err
	}
	args := []any{p.id, in.Title, slug, in.Summary, p.source, in.ContentMarkdown, p.html.HTML, string(toc), in.Status,
		in.CoverImage, sqlstore.FromNullTime(in.PublishedAt), *in.ShowComments, category, sqlstore.FromTime(p.updated),
		sqlstore.FromTime(p.created)}
	if p.create {
		_, err = tx.Exec(ctx, `INSERT INTO posts (id, title, slug, summary, summary_source, content_markdown, content_html, toc,
			status, cover_image, published_at, show_comments, category_id, updated_at, created_at, render_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`, append(args, renderVersion)...)
	} else {
		_, err = tx.Exec(ctx, `UPDATE posts SET title = $2, slug = $3, summary = $4, summary_source = $5,
			content_markdown = $6, content_html = $7, toc = $8, status = $9, cover_image = $10, published_at = $11,
			show_comments = $12, category_id = $13, updated_at = $14, render_version = $15 WHERE id = $1 AND deleted_at IS NULL`,
			append(args[:14:14], renderVersion)...)
	}
	if err != nil {
		if errors.Is(err, sqlstore.ErrConflict) {
			return errDuplicateSlug
		}
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM post_tags WHERE post_id = $1", p.id); err != nil {
		return err
	}
	for _, t := range in.TagIDs {
		if _, err := tx.Exec(ctx, "INSERT INTO post_tags (post_id, tag_id) VALUES ($1, $2)", p.id, t); err != nil {
			return err
		}
	}
	// After the UPDATE, which holds the post's row: concurrent saves of
	// one post keep their revisions one after the other.
	next := snapshotOfStored(p, slug)
	if err := keepRevision(ctx, tx, kindPost, p.id, p.replaced, next, postTitle, postContent, p.updated); err != nil {
		return err
	}
	oldSlug, wasVisible := "", false
	if prev := p.replaced.prev; prev != nil {
		oldSlug = prev.Slug
		wasVisible = prev.Status == StatusPublished && prev.PublishedAt != nil && !prev.PublishedAt.After(p.updated)
	}
	if err := noteSlug(ctx, tx, kindPost, p.id, oldSlug, slug, wasVisible, p.updated); err != nil {
		return err
	}
	return bumpPostsVersion(ctx, tx)
}

// deletePost soft-deletes a post, freeing its slug, and tells federation
// (its followers get a Delete).
func (b *Blog) deletePost(ctx context.Context, id string) error {
	if err := b.softDelete(ctx, "posts", id); err != nil {
		return err
	}
	b.queueFederatePost(id)
	return bumpPostsVersion(ctx, b.db)
}

// setGeneratedSummary stores a summary made by the AI, unless the author
// wrote one by hand meanwhile.
func (b *Blog) setGeneratedSummary(ctx context.Context, postID, summary string) error {
	if !sqlstore.ValidID(postID) {
		return sqlstore.ErrNotFound
	}
	_, err := b.db.Exec(ctx, "UPDATE posts SET summary = $1, summary_source = $2 WHERE id = $3 AND summary_source <> $4 AND deleted_at IS NULL",
		summary, summaryAI, postID, summaryManual)
	if err != nil {
		return fmt.Errorf("blog: set generated summary: %w", err)
	}
	return nil
}

// attachTags attaches tags by name, reusing live tags whose name matches
// case-insensitively and creating the missing ones; at most five names.
func (b *Blog) attachTags(ctx context.Context, postID string, names []string) error {
	if !sqlstore.ValidID(postID) {
		return sqlstore.ErrNotFound
	}
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		key := strings.ToLower(name)
		if name == "" || seen[key] || len(seen) >= maxAutoTags {
			continue
		}
		seen[key] = true
		tagID, err := b.tagByName(ctx, name)
		if err != nil {
			return err
		}
		err = b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO post_tags (post_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", postID, tagID); err != nil {
				return err
			}
			return bumpPostsVersion(ctx, tx) // the tag's cached totals
		})
		if err != nil {
			return fmt.Errorf("blog: attach tag %q: %w", name, err)
		}
	}
	return nil
}

// postStatusCounts counts the live posts by status, scheduled apart.
func (b *Blog) postStatusCounts(ctx context.Context) (PostCounts, error) {
	var c PostCounts
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
func (b *Blog) scheduledPosts(ctx context.Context, n int) ([]ScheduledPost, error) {
	rows, err := b.db.Query(ctx, `SELECT p.id, p.title, p.published_at FROM posts p
		WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_at > $1
		ORDER BY p.published_at, p.id LIMIT $2`, sqlstore.FromTime(b.now()), n)
	if err != nil {
		return nil, fmt.Errorf("blog: scheduled posts: %w", err)
	}
	defer rows.Close()
	var out []ScheduledPost
	for rows.Next() {
		var p ScheduledPost
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

// postIDBySlug returns the id of the live post with slug, read through q
// (an import's transaction); sqlstore.ErrNotFound when none.
func postIDBySlug(ctx context.Context, q sqlstore.Querier, slug string) (string, error) {
	var id string
	err := q.QueryRow(ctx, "SELECT id FROM posts WHERE slug = $1 AND deleted_at IS NULL", slug).Scan(&id)
	return id, err
}

// postTextBySlug returns the id, title and Markdown of the live post with
// slug, read through q; sqlstore.ErrNotFound when none.
func postTextBySlug(ctx context.Context, q sqlstore.Querier, slug string) (id, title, content string, err error) {
	err = q.QueryRow(ctx, "SELECT id, title, content_markdown FROM posts WHERE slug = $1 AND deleted_at IS NULL", slug).
		Scan(&id, &title, &content)
	return id, title, content, err
}
