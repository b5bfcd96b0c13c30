// Package tus holds the pure parts of the tus 1.0.0 resumable upload
// protocol that the file host serves at /api/v1/tus/ (docs/filehost.md,
// "Resumable uploads (tus)"): its header names and values, the
// Upload-Metadata and Upload-Checksum headers, the checksum hashers and the
// Upload-Expires date. It knows the protocol and nothing of Folio.
package tus
