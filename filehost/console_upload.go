package filehost

import (
	"net/http"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/templates"
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

	FileCount int64  // the account's files
	Format    string // the link format chosen: a linkFormats value
	Formats   []consoleChoice
	Posted    bool // this is a no-JavaScript form's answer

	Results  []uploadCard // files a no-JavaScript form stored
	Failed   *uploadCard  // the file a no-JavaScript form could not store
	Skipped  int          // files beyond MaxFiles, not read
	AllLinks string       // the stored files' links in Format, one a line
}

// uploadCard is one file of the queue as a no-JavaScript form's answer
// shows it: one compact row with the same markup the script builds
// (docs/console.md#uploading). It carries every format's link, for the
// script's format picker and "Copy all", and shows the chosen one.
type uploadCard struct {
	ID          string // the link field's id, unique on the page
	Name        string
	Size        int64 // -1: not known (a file refused while it was read)
	Thumb       string
	Badge       string // the extension shown instead of a thumbnail
	Links       links
	Format      string
	FormatLabel string
	Link        string // the link in Format
	Error       string
}

// linkFormats are the formats of the upload page's picker, in its order;
// the first is the default.
func linkFormats() []consoleChoice {
	return []consoleChoice{
		{"url", "URL"}, {"markdown", "Markdown"}, {"html", "HTML"}, {"bbcode", "BBCode"}, {"thumbnail", "Thumbnail URL"},
	}
}

// linkFormat is format when the picker offers it, else the default, with
// its label.
func linkFormat(format string) (string, string) {
	all := linkFormats()
	for _, f := range all {
		if f.Value == format {
			return f.Value, f.Label
		}
	}
	return all[0].Value, all[0].Label
}

// linkIn is l's link in format; a file without a thumbnail gives its URL
// for the thumbnail format, so that "Copy all" leaves no line empty.
func linkIn(l links, format string) string {
	switch format {
	case "markdown":
		return l.Markdown
	case "html":
		return l.HTML
	case "bbcode":
		return l.BBCode
	case "thumbnail":
		if l.ThumbnailURL != "" {
			return l.ThumbnailURL
		}
	}
	return l.URL
}

// newUploadCard shows a stored file, the n-th of the answer, with its link
// in format.
func newUploadCard(n int, f *fileRecord, format string) uploadCard {
	c := uploadCard{ID: "r" + strconv.Itoa(n) + "-link", Name: f.OriginName, Size: f.Size, Links: f.Links,
		Badge: strings.ToUpper(f.Extension)}
	c.Format, c.FormatLabel = linkFormat(format)
	c.Link = linkIn(f.Links, c.Format)
	if canThumbnail(f.Mimetype, f.Width, f.Height) {
		c.Thumb = "/t/" + f.hash
	}
	return c
}

// uploadProblem words an upload's refusal for the page, naming the limit
// it met (docs/console.md#when-a-file-is-refused): the API's messages stay
// as docs/api.md lists them, and the page adds what it knows. size is the
// refused file's, -1 when unknown; used and quota are the account's after
// the files stored before it (quota 0: none).
func uploadProblem(he *httpx.Error, set UploadSettings, size, used, quota int64) string {
	switch {
	case he.Status == http.StatusRequestEntityTooLarge:
		if size > 0 {
			return templates.HumanBytes(size) + " is over the " + templates.HumanBytes(set.MaxFileSize) + " limit."
		}
		return "Over the " + templates.HumanBytes(set.MaxFileSize) + " limit for one file."
	case he.Status == http.StatusUnsupportedMediaType:
		return httpx.Sentence(he.Msg) + " " + typeRules(set)
	case he.Status == http.StatusInsufficientStorage && quota > 0:
		left := max(quota-used, 0)
		msg := "Not enough room: " + templates.HumanBytes(left) + " of your " + templates.HumanBytes(quota) + " is left"
		if size > 0 {
			msg += ", and this file is " + templates.HumanBytes(size)
		}
		return msg + "."
	case he.Msg == "file is empty":
		return "Empty file (0 bytes): nothing to upload."
	}
	return httpx.Sentence(he.Msg)
}

// typeRules says which types the upload settings take.
func typeRules(set UploadSettings) string {
	var parts []string
	if len(set.AllowedTypes) > 0 {
		parts = append(parts, "Allowed types: "+strings.Join(set.AllowedTypes, ", ")+".")
	}
	if len(set.ForbiddenExts) > 0 {
		exts := make([]string, len(set.ForbiddenExts))
		for i, e := range set.ForbiddenExts {
			exts[i] = "." + e
		}
		parts = append(parts, "Never taken: "+strings.Join(exts, ", ")+".")
	}
	return strings.Join(parts, " ")
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
