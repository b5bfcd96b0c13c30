// Package blog owns the blog engine: posts, pages, categories, tags,
// comments and friend links, their Markdown, the runtime settings, and
// every surface that shows or changes them. One author writes the blog,
// the administrator; visitors read it and comment. A Blog (blog.go) is
// built by New from Deps; Blog.Routes registers the JSON API and the
// blog's console pages, and a Site (NewSite) registers the classic site.
//
// This comment is the map of the package: its surfaces, and the files that
// hold each.
//
// # Resources
//
// Each resource R has R.go (its types and pure validation), R_store.go
// (its SQL, returning plain values and the errors of errors.go) and
// R_http.go (its JSON API handlers), as docs/design.md#inside-a-domain
// says. The resources are posts, pages, terms (categories and tags: two
// tables with one store), comments, links (friend links) and revisions.
// Only *_store.go files, store.go and schema.go hold SQL; the other files
// call the stores.
//
//   - store.go: what every store uses (where, span, freeSlug, softDelete,
//     setMeta); schema.go: the blog's migrations.
//   - errors.go: the domain's errors, and httpError, the one place that
//     turns them into answers; validate.go: slugs and field checks.
//   - markdown.go: the Markdown renderer, the only producer of trusted
//     HTML, with the table of contents and excerpts.
//   - posts_count.go: the cache of post-list totals and paging anchors
//     (docs/design.md#paging); its queries are in posts_store.go.
//   - redirects.go, redirects_store.go: a post's or page's old slug leads
//     to its new place (docs/blog-api.md#slug-changes).
//
// # JSON API
//
// The API of docs/api.md#blog and docs/blog-api.md. routes.go registers it
// (public reads with CORS, the administrator's routes, the catch-alls) and
// holds the helpers its handlers share; the handlers are in *_http.go, one
// file per resource. session.go is the administrator's login, me and
// logout.
//
// # Classic site
//
// The server-rendered blog of docs/api.md#classic-site, served while
// render.render_mode is classic: site.go (Site: home, posts, pages,
// category and tag lists, search, feeds, sitemap, robots.txt),
// site_routes.go, site_http.go (rendering, ETags, the headless 404),
// site_comments.go (the comment form), site_cache.go (the rendered-page
// cache), site_changed.go (when the site last changed, for Last-Modified
// and the cache, across processes) and site_store.go (the site's own read
// queries).
//
// # Console pages
//
// The blog half of the web console (docs/console.md#the-blog), pages
// rendered from the templates package in the frame auth.Console gives:
// console_routes.go registers them, and console_*_http.go hold one page
// group each: the dashboard, posts and the editor, pages, categories and
// tags, friend links, comments, revisions, preview links, federation,
// settings, and import and export (console_import_http.go).
// console_forms.go turns a refused write into the form shown again.
// overview.go counts what the dashboards show (Overview: posts by status,
// comments waiting, the newest comments, the next scheduled posts), for
// the blog's own dashboard and, through cmd/folio, the administrator's
// home, which the file host serves. The
// pages are methods of consoleHandlers, which wraps *Blog: the domain's
// methods stay on *Blog, the pages' own helpers with the pages.
//
// # Comments and their moderation
//
// Visitors comment through the API (comments_http.go, rate-limited) or
// the site's form (site_comments.go), on posts that take comments; each
// waits, pending, for the administrator's review. The administrator
// moderates through the API (comments_http.go) and the console's queue
// (console_comments_http.go).
//
// # Import and export
//
// docs/export-import.md. Blog.Export (archive.go) writes the Folio
// archive, reading through archive_store.go; Blog.Import (import.go) runs
// an import in one transaction (importer), with a reader per format:
//   - import_folio.go, the Folio archive;
//   - import_ghost.go, Ghost's export: its items read in
//     import_ghost_items.go, their content in import_ghost_content.go,
//     through blog/ghostdoc;
//   - import_wxr.go, WordPress's (items, terms, the more mark), with
//     import_wxr_xml.go (namespaces, the fallback reader for broken
//     CDATA), import_wxr_shortcodes.go (shortcodes, embeds, attachments),
//     import_wxr_autop.go (WordPress's paragraphs) and import_wxr_site.go
//     (the old site's address);
//   - import_markdown.go, Hugo and Jekyll sites: import_markdown_files.go
//     reads their archives and folders, import_markdown_body.go converts
//     shortcodes and Liquid.
//
// import_rawhtml.go turns the raw HTML of imported Markdown into Markdown.
// import_media.go brings the images an import references home through the
// file host (Deps.Media), import_media_site.go takes a Hugo or Jekyll
// site's own from its archive or folder, import_media_store.go remembers
// them. import_limits.go bounds what an import reads; frontmatter.go
// writes and reads the archive's front matter. archive_http.go holds the
// export and import routes and reads the import's form for them and for
// the console's import page (console_import_http.go); import_report.go
// orders a result into the report people read (the console's and the
// folio command's). The folio command's export and import call the same
// two.
//
// # Revisions and previews
//
// A save that replaces a post or page keeps the version it replaced
// (docs/blog-api.md#revisions): revisions.go (snapshots, restore),
// revisions_store.go, revisions_http.go (API) and
// console_revisions_http.go (with a line diff). preview.go makes and
// serves signed preview links of unpublished posts
// (docs/console.md#preview-links); console_preview_http.go is their
// console page. The editor's live preview is console_posts_http.go's.
//
// # AI summaries and tags
//
// docs/ai.md. ai_http.go answers the editor's on-demand summary and tag
// requests; ai_jobs.go runs the background jobs that summarise and tag a
// post after it is saved, as rows of sqlstore.Jobs that outlive the
// process that queued them.
//
// # Settings
//
// settings.go: the site, post and render settings groups (the ai group is
// blog/ai's), registered with sqlstore's registry, and the settings API;
// console_settings_http.go is the console's settings page.
//
// # Federation
//
// docs/federation.md: the blog as one ActivityPub actor, off until the
// administrator turns it on. federation.go is the core (the settings
// group, the key pair made once, the origin IRIs are built of, signed
// requests, the remote actor type) with federation_store.go. The
// publishing side sends posts as Articles and delivers every activity by
// jobs (federation_delivery.go: deliver, deliverWithFollowers). The inbox
// (federation_inbox.go, federation_inbox_store.go) verifies and takes
// follows, replies (pending comments), likes and boosts;
// federation_remote.go and federation_remote_store.go fetch, keep and
// check remote actors and blocks. The administrator's side:
// console_federation_http.go (the console page: the switch, followers,
// blocks, delivery health, reactions) with federation_console_store.go,
// the reply to a fediverse comment in console_comments_http.go, and
// federation_comments_http.go, the Notes of those replies. The protocol
// engines are the leaf packages blog/httpsig and blog/activitypub.
//
// # Engines
//
// General engines that know nothing of the blog live in leaf packages
// under it: blog/ai (the AI provider client and its job queue),
// blog/ghostdoc (Ghost's Mobiledoc and Lexical documents, for the Ghost
// import), blog/htmltomd (HTML to Markdown, for the Ghost and WordPress
// imports), blog/frontmatter (the front matter of Hugo and Jekyll files),
// blog/linediff (the line diff of the console's revision pages),
// blog/httpsig (HTTP Signatures and Digest) and blog/activitypub (the
// ActivityStreams vocabulary, WebFinger and NodeInfo), for federation.
package blog
