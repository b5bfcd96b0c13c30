package filehost

import "folio/sqlstore"

// migrations are the file host's tables. objects hold stored content, shared
// by reference count between file records when duplicates are not allowed;
// files are the per-user records that the API shows.
func migrations() []sqlstore.Migration {
	return []sqlstore.Migration{
		{Name: "objects, albums and files", Up: sqlstore.Statements(
			`CREATE TABLE objects (
				id {{uuid}} PRIMARY KEY,
				md5 TEXT NOT NULL,
				sha256 TEXT NOT NULL,
				hash TEXT NOT NULL,
				storage_key TEXT NOT NULL,
				size BIGINT NOT NULL,
				mimetype TEXT NOT NULL,
				extension TEXT NOT NULL,
				file_type TEXT NOT NULL,
				width INTEGER NOT NULL DEFAULT 0,
				height INTEGER NOT NULL DEFAULT 0,
				ref_count INTEGER NOT NULL DEFAULT 0,
				shared BOOLEAN NOT NULL DEFAULT FALSE,
				created_at BIGINT NOT NULL
			)`,
			`CREATE UNIQUE INDEX objects_hash ON objects (hash)`,
			// One shared object per content: the object that uploads with
			// allow_duplicate off reuse. Copies stored with it on are not
			// shared. The index settles concurrent uploads of the same bytes.
			`CREATE UNIQUE INDEX objects_shared_content ON objects (md5, sha256) WHERE shared`,
			`CREATE UNIQUE INDEX objects_storage_key ON objects (storage_key)`,
			`CREATE INDEX objects_md5 ON objects (md5)`,
			`CREATE TABLE albums (
				id {{uuid}} PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				name TEXT NOT NULL,
				description TEXT NOT NULL DEFAULT '',
				is_public BOOLEAN NOT NULL DEFAULT FALSE,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE INDEX albums_user ON albums (user_id, created_at)`,
			`CREATE TABLE files (
				id {{uuid}} PRIMARY KEY,
				user_id {{uuid}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
				object_id {{uuid}} NOT NULL REFERENCES objects (id),
				album_id {{uuid}} REFERENCES albums (id) ON DELETE SET NULL,
				origin_name TEXT NOT NULL,
				size BIGINT NOT NULL,
				is_public BOOLEAN NOT NULL DEFAULT FALSE,
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
			`CREATE INDEX files_user_created ON files (user_id, created_at)`,
			`CREATE INDEX files_object ON files (object_id)`,
			`CREATE INDEX files_album ON files (album_id)`,
			`CREATE INDEX files_public_created ON files (is_public, created_at)`,
		)},
		// Expiring files (docs/filehost.md#expiring-files): NULL keeps a
		// file until it is deleted; the sweep finds the others by index.
		{Name: "file expiry", Up: sqlstore.Statements(
			`ALTER TABLE files ADD COLUMN expires_at BIGINT`,
			`CREATE INDEX files_expires ON files (expires_at) WHERE expires_at IS NOT NULL`,
		)},
		// Share links (docs/filehost.md#share-links): revoking one deletes
		// its row; deleting the file deletes its links.
		{Name: "share links", Up: sqlstore.Statements(
			`CREATE TABLE shares (
				id {{uuid}} PRIMARY KEY,
				file_id {{uuid}} NOT NULL REFERENCES files (id) ON DELETE CASCADE,
				token TEXT NOT NULL,
				expires_at BIGINT,
				max_views INTEGER,
				views INTEGER NOT NULL DEFAULT 0,
				password_hash TEXT,
				created_at BIGINT NOT NULL
			)`,
			`CREATE UNIQUE INDEX shares_token ON shares (token)`,
			`CREATE INDEX shares_file ON shares (file_id, created_at)`,
		)},
		// Storage intents (docs/filehost.md#crash-consistency): each
		// placement and deletion of stored bytes, recorded before it
		// happens and deleted once it is settled.
		{Name: "storage intents", Up: sqlstore.Statements(
			`CREATE TABLE storage_intents (
				id {{uuid}} PRIMARY KEY,
				op TEXT NOT NULL CHECK (op IN ('place', 'delete')),
				storage_key TEXT NOT NULL,
				instance_id TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
			`CREATE INDEX storage_intents_key ON storage_intents (storage_key)`,
		)},
		// Covering indexes for paging (docs/design.md#paging): a list first
		// pages its file ids in one of these, in the list's order down to
		// the id that breaks ties, so the rows OFFSET skips are index
		// entries, not records joined to their objects. Each holds the
		// columns its list's WHERE reads (expires_at for liveFile, the
		// album filters, object_id for the type filter's join). The ones
		// they extend go.
		{Name: "covering indexes for paging", Up: sqlstore.Statements(
			`DROP INDEX files_user_created`,
			`CREATE INDEX files_user_paging ON files (user_id, created_at, id, expires_at, album_id, object_id)`,
			`DROP INDEX files_public_created`,
			`CREATE INDEX files_public_paging ON files (is_public, created_at, id, expires_at, object_id)`,
			`CREATE INDEX files_paging ON files (created_at, id, expires_at, object_id)`,
			// The type filter, without reading the object.
			`CREATE INDEX objects_type ON objects (id, file_type)`,
			`DROP INDEX albums_user`,
			`CREATE INDEX albums_user_paging ON albums (user_id, created_at, id)`,
		)},
		// Wrong share-link passwords from all addresses together
		// (docs/filehost.md#share-links): guesses counts the answers taken
		// for checking in the window that began at guess_window (NULL:
		// none yet), less the right ones.
		{Name: "share link guesses", Up: sqlstore.Statements(
			`ALTER TABLE shares ADD COLUMN guesses INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE shares ADD COLUMN guess_window BIGINT`,
		)},
		// Visibility (docs/filehost.md#visibility): what was public stays
		// public, what was private becomes unlisted (served to whoever has
		// the link, as before). is_public stays, kept equal to visibility
		// = 'public', for the plaza's index.
		{Name: "file visibility", Up: sqlstore.Statements(
			`ALTER TABLE files ADD COLUMN visibility TEXT NOT NULL DEFAULT 'unlisted'
				CHECK (visibility IN ('public', 'unlisted', 'restricted'))`,
			`UPDATE files SET visibility = 'public' WHERE is_public`,
		)},
		// Resumable uploads (docs/filehost.md#resumable-uploads-tus): an
		// upload's row, and one row per part object its chunks were stored
		// as, so that assembling or deleting it lists no storage. user_id
		// has no foreign key: an account's deletion must not drop the part
		// rows that name stored bytes; the janitor removes them on expiry.
		{Name: "tus uploads", Up: sqlstore.Statements(
			`CREATE TABLE tus_uploads (
				id {{uuid}} PRIMARY KEY,
				user_id {{uuid}} NOT NULL,
				upload_length BIGINT NOT NULL,
				upload_offset BIGINT NOT NULL DEFAULT 0,
				metadata TEXT NOT NULL,
				file_id {{uuid}},
				created_at BIGINT NOT NULL,
				expires_at BIGINT NOT NULL
			)`,
			`CREATE INDEX tus_uploads_expires ON tus_uploads (expires_at)`,
			`CREATE TABLE tus_parts (
				upload_id {{uuid}} NOT NULL REFERENCES tus_uploads (id),
				part_offset BIGINT NOT NULL,
				size BIGINT NOT NULL,
				storage_key TEXT NOT NULL,
				PRIMARY KEY (upload_id, part_offset)
			)`,
			`CREATE UNIQUE INDEX tus_parts_key ON tus_parts (storage_key)`,
		)},
		// Image variants (docs/filehost.md#sizes): the widths made of an
		// object, stored under storage_key in the thumbs folder, counted by
		// the storage statistics and deleted with their object.
		{Name: "image variants", Up: sqlstore.Statements(
			`CREATE TABLE image_variants (
				object_id {{uuid}} NOT NULL,
				width INTEGER NOT NULL,
				storage_key TEXT NOT NULL,
				size BIGINT NOT NULL,
				created_at BIGINT NOT NULL,
				PRIMARY KEY (object_id, width)
			)`,
		)},
		// A JPEG's Exif orientation (docs/filehost.md#sizes): phones
		// store portrait photos sideways and say so, and a page that
		// reserves the stored width and height for one lays it out
		// turned. Objects stored before are read as upright (1).
		{Name: "object orientation", Up: sqlstore.Statements(
			`ALTER TABLE objects ADD COLUMN orientation INTEGER NOT NULL DEFAULT 1`,
		)},
	}
}
