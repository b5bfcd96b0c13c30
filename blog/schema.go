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
		// Federation (docs/federation.md): the blog's key pair, made once
		// whatever the number of processes; the remote actors it has seen,
		// its followers and the blocks; what each post last federated as;
		// the outgoing activities that delivery jobs (sqlstore.Jobs) read;
		// each inbox host's delivery record; likes and boosts. Fediverse
		// replies are comments that keep the Note's id, the author's
		// handle and profile, and the comment they answer.
		{Name: "federation", Up: sqlstore.Statements(
			`CREATE TABLE ap_keys (
				name TEXT PRIMARY KEY,
				origin TEXT NOT NULL,
				public_pem TEXT NOT NULL,
				private_pem TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
			`CREATE TABLE ap_actors (
				id TEXT PRIMARY KEY,
				key_id TEXT NOT NULL,
				public_pem TEXT NOT NULL,
				inbox TEXT NOT NULL,
				shared_inbox TEXT NOT NULL DEFAULT '',
				handle TEXT NOT NULL,
				name TEXT NOT NULL,
				url TEXT NOT NULL,
				icon TEXT NOT NULL DEFAULT '',
				host TEXT NOT NULL,
				fetched_at BIGINT NOT NULL
			)`,
			`CREATE INDEX ap_actors_key ON ap_actors (key_id)`,
			`CREATE TABLE ap_followers (
				actor_id TEXT PRIMARY KEY,
				follow_id TEXT NOT NULL,
				status TEXT NOT NULL,
				inbox TEXT NOT NULL,
				host TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE INDEX ap_followers_inbox ON ap_followers (status, inbox)`,
			`CREATE INDEX ap_followers_host ON ap_followers (host)`,
			`CREATE TABLE ap_blocks (
				kind TEXT NOT NULL,
				value TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				PRIMARY KEY (kind, value)
			)`,
			`CREATE TABLE ap_posts (
				post_id {{uuid}} PRIMARY KEY,
				object_id TEXT NOT NULL,
				state TEXT NOT NULL,
				hash TEXT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE TABLE ap_activities (
				id {{uuid}} PRIMARY KEY,
				body TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
			`CREATE TABLE ap_hosts (
				host TEXT PRIMARY KEY,
				last_success BIGINT NOT NULL DEFAULT 0,
				last_failure BIGINT NOT NULL DEFAULT 0,
				failures INTEGER NOT NULL DEFAULT 0,
				given_up BIGINT NOT NULL DEFAULT 0,
				last_error TEXT NOT NULL DEFAULT ''
			)`,
			`CREATE TABLE ap_reactions (
				post_id {{uuid}} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
				kind TEXT NOT NULL,
				actor_id TEXT NOT NULL,
				activity_id TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				PRIMARY KEY (post_id, kind, actor_id)
			)`,
			`CREATE INDEX ap_reactions_activity ON ap_reactions (activity_id)`,
			`ALTER TABLE comments ADD COLUMN ap_id TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE comments ADD COLUMN author_handle TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE comments ADD COLUMN author_url TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE comments ADD COLUMN reply_to TEXT NOT NULL DEFAULT ''`,
			`CREATE UNIQUE INDEX comments_ap_id ON comments (ap_id) WHERE ap_id <> ''`,
		)},
		// The inbox (docs/federation.md#the-inbox): the ids of the
		// activities it took, kept two days so that one delivered twice
		// does its work once; and the actor a fediverse reply is by, whom
		// alone its Update and Delete are taken from.
		{Name: "federation inbox", Up: sqlstore.Statements(
			`CREATE TABLE ap_inbox_seen (
				activity_id TEXT PRIMARY KEY,
				seen_at BIGINT NOT NULL
			)`,
			`CREATE INDEX ap_inbox_seen_at ON ap_inbox_seen (seen_at)`,
			`ALTER TABLE comments ADD COLUMN ap_actor TEXT NOT NULL DEFAULT ''`,
			`CREATE INDEX comments_ap_actor ON comments (ap_actor) WHERE ap_actor <> ''`,
		)},
		// Federation's delivery (docs/federation.md#delivery): when an
		// inbox host started failing, so that one dead for days is given
		// up at once; the fan-out's place in the followers, so that a
		// fan-out re-run after a crash queues no inbox twice; the latest
		// Create or Update of each post, which is kept while the post is.
		{Name: "federation delivery", Up: sqlstore.Statements(
			`ALTER TABLE ap_hosts ADD COLUMN failing_since BIGINT NOT NULL DEFAULT 0`,
			`ALTER TABLE ap_activities ADD COLUMN fanout_after TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE ap_posts ADD COLUMN activity_id TEXT NOT NULL DEFAULT ''`,
			`CREATE INDEX ap_activities_created ON ap_activities (created_at)`,
			`CREATE INDEX ap_posts_object ON ap_posts (object_id)`,
		)},
		// The renderer's version a post's or page's HTML was made by: the
		// blog renders older ones again as it starts (render_store.go).
		{Name: "render version", Up: sqlstore.Statements(
			`ALTER TABLE posts ADD COLUMN render_version INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE pages ADD COLUMN render_version INTEGER NOT NULL DEFAULT 0`,
		)},
	}
}
