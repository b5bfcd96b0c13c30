// Package filehost owns the file host: uploads compatible with Lsky Pro 2.x
// clients, MD5 de-duplication, short links and thumbnails, share links,
// files, albums, API tokens, visibility, quotas, public statistics, the
// file side's admin area and the console pages that show all of it
// (docs/filehost.md, docs/console.md). cmd/folio builds one Service from
// Deps (filehost.go: New migrates, Open only reads) and registers its
// routes; the tables are the file host's own, migrated by schema.go.
//
// Each resource R is laid out as docs/design.md#inside-a-domain says: R.go
// holds its types and pure validation, R_store.go its SQL (every statement
// of the package is in a *_store.go file or schema.go), R_http.go its
// handlers; a resource whose only types are its request and answer shapes
// keeps them in R_http.go. errors.go holds the domain's errors and
// httpError, the one place that turns them into answers.
//
// # Uploads and the /api/v1 file routes
//
// routes.go registers the JSON API under /api/v1 (envelope A,
// docs/api.md#envelopes) and the Lsky Pro routes beside it, in Lsky's
// shape (docs/filehost.md#lsky-pro-compatibility-routes).
//
//   - Uploads (POST /api/v1/upload, and /api/v1/public/upload for the
//     guest): upload.go (names, types, storage keys), upload_http.go (the
//     multipart reading), upload_stream.go (the one streaming pass that
//     hashes and writes), upload_store.go (de-duplication, the quota
//     check, the record).
//   - Files other parts of Folio fetch, through the same pipeline (the
//     blog's import bringing an old site's images home, which cmd/folio
//     hands ImportMedia and MediaExists): import_media.go,
//     import_media_store.go.
//   - Lsky Pro's profile, strategies, image list and image deletion:
//     lsky_profile_http.go, lsky_images_http.go, lsky_images_store.go.
//   - Files and albums: files.go, files_http.go, files_store.go; albums.go,
//     albums_http.go, albums_store.go.
//   - Accounts and API tokens (/api/v1/auth, /api/v1/tokens), kept by
//     package auth: accounts_http.go, tokens.go, tokens_http.go.
//   - Public statistics and the plaza (/api/v1/public): public_http.go,
//     public_store.go.
//
// Metadata stripping (docs/filehost.md#metadata-stripping), the Exif
// orientation of thumbnails and the naming of ISO BMFF types are the leaf
// package filehost/imagemeta: the engine the upload pipeline streams each
// part through, knowing nothing of records or routes.
//
// # Public serving: short links and thumbnails
//
// /i/{hash}, /v/, /a/ and /f/ serve a file's bytes, /t/ its thumbnail
// (docs/filehost.md#short-links): shortlinks.go (a link's target and who
// may read it), shortlinks_http.go, shortlinks_store.go; thumbs.go,
// thumbs_http.go, thumbs_store.go and thumbs_limit.go (the memory bound of
// making them). linkcache.go caches targets and small files' bytes,
// dropped in every process by a change counter; redirect.go answers with
// presigned URLs when the store makes them (docs/filehost.md#s3); misses.go
// counts each address's misses.
//
// # Share links
//
// /s/{token} pages for anyone, and the API and console forms that make and
// revoke them (docs/filehost.md#share-links): shares.go, shares_http.go,
// shares_store.go, console_shares_http.go.
//
// # Console pages
//
// console_routes.go registers the pages under /console and the guest's
// /upload (docs/console.md). Each area is a console_*_http.go, with its
// page data in the console_*.go of the same name where it has much:
// sign-in and registration (console_signin_http.go), upload
// (console_upload*.go), files and albums (console_files*.go,
// console_albums_http.go), tokens and client setups (console_tokens*.go),
// account (console_account_http.go), administration (console_admin*.go,
// console_dashboard_http.go, the administrator's home, whose charts
// console_charts.go draws as SVG and whose blog panel comes from
// Deps.Blog, a BlogOverview (filehost.go) that cmd/folio fills from the
// blog).
// The pages are methods of consoleHandlers, which wraps *Service: the
// domain's methods stay on *Service, the pages' own helpers with the pages.
//
// # Admin API
//
// /api/v1/admin, for the administrator: users (admin_users_http.go, kept by
// package auth), every user's files (files_http.go, files_store.go) and the
// statistics (admin_stats.go, admin_stats_http.go, admin_stats_store.go,
// which also gives the blog's dashboard its StorageUsage).
//
// # Backups, fsck and jobs
//
//   - folio backup and folio storage migrate read what the records point
//     at through backup_store.go (docs/backup.md).
//   - folio fsck compares the records with the stored bytes and repairs
//     them: check.go, check_store.go (docs/filehost.md#folio-fsck).
//   - Storage intents record each placement and deletion of bytes before
//     it happens (intents_store.go); the janitor settles those a dead
//     process left, with stale temporary uploads and spool files:
//     janitor.go, janitor_store.go (docs/filehost.md#crash-consistency).
//   - The expiry sweep deletes expired records under a lease: expiry.go,
//     expiry_store.go (docs/filehost.md#expiring-files).
//
// # Settings, visibility and quotas
//
// settings.go declares the upload settings group: size and type limits,
// the storage path pattern and its rules, registration, guest uploads,
// de-duplication, metadata stripping and the default quota. visibility.go holds the three visibilities of a file and each
// account's default (docs/filehost.md#visibility). A quota is a user's
// quota_bytes (package auth), set from upload.default_quota_bytes at sign
// up and by the administrator; upload_store.go grows usage only within
// it, deletions in files_store.go give it back, and fsck's usage check
// recounts it. metrics.go holds the upload and serving counters
// (docs/observability.md).
package filehost
