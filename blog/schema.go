package blog

import "folio/sqlstore"

// migrations are the blog's tables. Rows are soft-deleted (deleted_at), so
// every uniqueness rule is a partial index over live rows: a deleted row
// frees its slug or URL.
func migrations() []sqlstore.Migration {
	return []sqlstore.Migration{
		{Name: "posts, pages, terms, comments, friend links", Up: sqlstore.Statements(
			`CREATE TABLE categories (
				id {{uuid}} PRIMARY KEY,
				name TEXT NOT NULL,
				slug TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL,
				deleted_at BIGINT
			)`,
			`CREATE UNIQUE INDEX categories_slug ON categories (slug) WHERE deleted_at IS NULL`,
			`CREATE INDEX categories_live ON categories (deleted_at, created_at)`,
			`CREATE TABLE tags (
				id {{uuid}} PRIMARY KEY,
				name TEXT NOT NULL,
				slug TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL,
				deleted_at BIGINT
			)`,
			`CREATE UNIQUE INDEX tags_slug ON tags (slug) WHERE deleted_at IS NULL`,
			`CREATE INDEX tags_name ON tags (LOWER(name)) WHERE deleted_at IS NULL`,
			`CREATE INDEX tags_live ON tags (deleted_at, created_at)`,
			`CREATE TABLE posts (
				id {{uuid}} PRIMARY KEY,
				title TEXT NOT NULL,
				slug TEXT NOT NULL,
				summary TEXT NOT NULL DEFAULT '',
				summary_source TEXT NOT NULL DEFAULT 'auto',
				content_markdown TEXT NOT NULL DEFAULT '',
				content_html TEXT NOT NULL DEFAULT '',
				toc TEXT NOT NULL DEFAULT '[]',
				status TEXT NOT NULL,
				cover_image TEXT NOT NULL DEFAULT '',
				published_at BIGINT,
				show_comments BOOLEAN NOT NULL DEFAULT TRUE,
				category_id {{uuid}} REFERENCES categories (id),
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL,
				deleted_at BIGINT
			)`,
			`CREATE UNIQUE INDEX posts_slug ON posts (slug) WHERE deleted_at IS NULL`,
			// The public list: published live posts newest first, read in
			// index order so a page costs the same however many posts exist.
			`CREATE INDEX posts_public ON posts (published_at DESC, created_at DESC) WHERE status = 'published' AND deleted_at IS NULL`,
			`CREATE INDEX posts_admin ON posts (created_at) WHERE deleted_at IS NULL`,
			`CREATE INDEX posts_category ON posts (category_id) WHERE deleted_at IS NULL`,
			`CREATE TABLE post_tags (
				post_id {{uuid}} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
				tag_id {{uuid}} NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
				PRIMARY KEY (post_id, tag_id)
			)`,
			`CREATE INDEX post_tags_tag ON post_tags (tag_id, post_id)`,
			`CREATE TABLE pages (
				id {{uuid}} PRIMARY KEY,
				title TEXT NOT NULL,
				slug TEXT NOT NULL,
				content_markdown TEXT NOT NULL DEFAULT '',
				content_html TEXT NOT NULL DEFAULT '',
				status TEXT NOT NULL,
				sort_order INTEGER NOT NULL DEFAULT 0,
				show_in_nav BOOLEAN NOT NULL DEFAULT FALSE,
				published_at BIGINT,
				template TEXT NOT NULL DEFAULT 'default',
				config TEXT NOT NULL DEFAULT '{}',
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL,
				deleted_at BIGINT
			)`,
			`CREATE UNIQUE INDEX pages_slug ON pages (slug) WHERE deleted_at IS NULL`,
			`CREATE INDEX pages_public ON pages (sort_order, created_at) WHERE status = 'published' AND deleted_at IS NULL`,
			`CREATE TABLE comments (
				id {{uuid}} PRIMARY KEY,
				post_id {{uuid}} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
				author TEXT NOT NULL,
				email TEXT NOT NULL,
				content TEXT NOT NULL,
				status TEXT NOT NULL,
				ip TEXT NOT NULL DEFAULT '',
				user_agent TEXT NOT NULL DEFAULT '',
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE INDEX comments_post ON comments (post_id, status, created_at)`,
			`CREATE INDEX comments_created ON comments (created_at)`,
			`CREATE TABLE friend_links (
				id {{uuid}} PRIMARY KEY,
				name TEXT NOT NULL,
				url TEXT NOT NULL,
				description TEXT NOT NULL DEFAULT '',
				logo TEXT NOT NULL DEFAULT '',
				sort INTEGER NOT NULL DEFAULT 0,
				status TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL,
				deleted_at BIGINT
			)`,
			`CREATE UNIQUE INDEX friend_links_url ON friend_links (url) WHERE deleted_at IS NULL`,
			`CREATE INDEX friend_links_order ON friend_links (sort, created_at) WHERE deleted_at IS NULL`,
		)},
		// Covering indexes for paging (docs/design.md#paging): a list first
		// pages its ids in one of these, in the list's order down to the id
		// that breaks ties, so the rows OFFSET skips are index entries, not
		// whole posts. Each holds every column its list's WHERE reads, even
		// the ones its own WHERE fixes: SQLite reads the table for a column
		// the index lacks. The ones they extend go.
		{Name: "covering indexes for paging", Up: sqlstore.Statements(
			`DROP INDEX posts_public`,
			`CREATE INDEX posts_public_paging ON posts (published_at DESC, created_at DESC, id DESC, status, deleted_at)
				WHERE status = 'published' AND deleted_at IS NULL`,
			`CREATE INDEX posts_public_category_paging ON posts (category_id, published_at DESC, created_at DESC, id DESC, status, deleted_at)
				WHERE status = 'published' AND deleted_at IS NULL`,
			`DROP INDEX posts_admin`,
			`CREATE INDEX posts_admin_paging ON posts (created_at DESC, id DESC, status, deleted_at) WHERE deleted_at IS NULL`,
			`DROP INDEX posts_category`,
			// Without status, so that SQLite (which keeps no statistics)
			// never prefers scanning and sorting it over posts_admin_paging
			// for the administrator's list of one status.
			`CREATE INDEX posts_category_paging ON posts (category_id, created_at DESC, id DESC, deleted_at) WHERE deleted_at IS NULL`,
			// Whether a post is live (a comment's) or visible (the
			// sidebar's tag counts), without reading the post.
			`CREATE INDEX posts_live ON posts (id, deleted_at, status, published_at)`,
			`DROP INDEX comments_post`,
			`CREATE INDEX comments_post_paging ON comments (post_id, status, created_at, id)`,
			`DROP INDEX comments_created`,
			`CREATE INDEX comments_admin_paging ON comments (created_at DESC, id DESC, status, post_id)`,
			`DROP INDEX pages_public`,
			`CREATE INDEX pages_public_paging ON pages (sort_order, created_at, id, status, deleted_at)
				WHERE status = 'published' AND deleted_at IS NULL`,
			`CREATE INDEX pages_admin_paging ON pages (created_at DESC, id DESC, status, deleted_at) WHERE deleted_at IS NULL`,
		)},
		// Revisions: the versions a save replaced, as JSON of the saved
		// input, and the slugs a visible post or page gave up, kept so
		// that old links still reach it (docs/blog-api.md#revisions,
		// #slug-changes). A revision's id is time-ordered: it breaks ties
		// of created_at, which a fixed clock makes common.
		{Name: "revisions and slug redirects", Up: sqlstore.Statements(
			`CREATE TABLE revisions (
				id {{uuid}} PRIMARY KEY,
				kind TEXT NOT NULL,
				owner_id {{uuid}} NOT NULL,
				title TEXT NOT NULL,
				size BIGINT NOT NULL,
				snapshot TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
			`CREATE INDEX revisions_owner ON revisions (kind, owner_id, created_at, id)`,
			`CREATE TABLE slug_redirects (
				kind TEXT NOT NULL,
				old_slug TEXT NOT NULL,
				target_id {{uuid}} NOT NULL,
				created_at BIGINT NOT NULL,
				PRIMARY KEY (kind, old_slug)
			)`,
		)},
		// The files imports brought home: an old site's address and the
		// link of its copy in the file host, so that importing again
		// fetches nothing twice and writes the same Markdown
		// (docs/export-import.md#bringing-images-home).
		{Name: "imported media", Up: sqlstore.Statements(
			`CREATE TABLE import_media (
				source_url TEXT PRIMARY KEY,
				link TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
		)},
	}
}
