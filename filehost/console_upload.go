package filehost

import (
	"strconv"
	"strings"
)

// Limits of the console's upload page (docs/console.md#uploading).
const (
	// consoleMaxFiles bounds the files of one no-JavaScript form; the
	// page's script sends each file on its own.
	consoleMaxFiles = 20
	// consoleMaxAlbums bounds the album list of the page.
	consoleMaxAlbums = 1000
	// guestPerMinute is the guest uploads' allowance per address, of the
	// API and the page alike.
	guestPerMinute = 10
	// consoleTusThreshold: the page's script sends larger files through
	// tus, in consoleTusChunk pieces, so that a dropped connection or a
	// reload costs at most one piece (docs/console.md#resumable-uploads).
	consoleTusThreshold = 16 << 20
	consoleTusChunk     = 8 << 20
)

// uploadPage is the upload page's data, for a signed-in user or a guest.
type uploadPage struct {
	Guest         bool
	Action        string // the no-JavaScript form's target, form token included
	Endpoint      string // the API endpoint the script sends each file to
	MaxFileSize   int64
	MaxFiles      int // files of one no-JavaScript form
	AllowedTypes  []string
	ForbiddenExts []string
	Accept        string // the file input's accept attribute; empty for any
	Albums        []*album
	AlbumID       string          // the album selected
	Visibility    visibilityField // the account's default, or what the form sent
	ExpiresIn     string          // seconds, as the expiry choice sends them; "" never
	Expiries      []expiryChoice
	UsedBytes     int64
	QuotaBytes    int64  // 0: no quota
	PerMinute     int    // the guest allowance per address
	TusEndpoint   string // resumable uploads' endpoint; "" for guests
	TusThreshold  int64  // files above it go through tus
	TusChunk      int64  // the bytes of one PATCH
	User          string // the account's id: part of a resumable upload's fingerprint

	Results []uploadCard // files a no-JavaScript form stored
	Failed  *uploadCard  // the file a no-JavaScript form could not store
	Skipped int          // files beyond MaxFiles, not read
}

// uploadCard is one file of the queue as a no-JavaScript form's answer
// shows it: the same markup the script builds (docs/console.md#uploading).
type uploadCard struct {
	Name    string
	Formats []uploadFormat
	Error   string
}

// uploadFormat is one way to share a stored file, with a copy button.
type uploadFormat struct {
	ID, Format, Label, Value string
}

// newUploadCard lists the links of a stored file; the n-th card's field
// ids stay unique on the page.
func newUploadCard(n int, f *fileRecord) uploadCard {
	c := uploadCard{Name: f.OriginName}
	add := func(format, label, value string) {
		if value != "" {
			c.Formats = append(c.Formats, uploadFormat{ID: "r" + strconv.Itoa(n) + "-" + format,
				Format: format, Label: label, Value: value})
		}
	}
	add("url", "URL", f.Links.URL)
	add("markdown", "Markdown", f.Links.Markdown)
	add("html", "HTML", f.Links.HTML)
	add("bbcode", "BBCode", f.Links.BBCode)
	add("thumbnail", "Thumbnail URL", f.Links.ThumbnailURL)
	return c
}

// acceptList turns allowed_types into a file input's accept attribute:
// MIME types and families as they are, bare extensions with a dot. It is
// only a hint to the browser's picker; the server decides.
func acceptList(allowed List) string {
	out := make([]string, 0, len(allowed))
	for _, a := range allowed {
		if strings.Contains(a, "/") {
			out = append(out, a)
		} else {
			out = append(out, "."+a)
		}
	}
	return strings.Join(out, ",")
}

// expiryChoice is one entry of the upload form's expiry list.
type expiryChoice struct {
	Seconds string // the expires_in value; "" keeps the files
	Label   string
}

// expiryChoices are the expiries the upload form offers; the API takes any
// (docs/filehost.md#expiring-files).
func expiryChoices() []expiryChoice {
	return []expiryChoice{
		{"", "Never"}, {"3600", "1 hour"}, {"86400", "1 day"}, {"604800", "7 days"}, {"2592000", "30 days"},
	}
}
