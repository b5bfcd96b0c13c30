package filehost

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"folio/templates"
)

// consoleFilesPage is how many files the console's grid shows a page.
const consoleFilesPage = 40

// consoleAlbumsPage is how many albums the console's album list shows a page.
const consoleAlbumsPage = 20

// consoleAlbumChoices bounds the albums offered in the console's album
// pickers: one query, whatever the account holds.
const consoleAlbumChoices = 500

// consoleFileTypes are the file_type values the grid filters on, with the
// names people read.
var consoleFileTypes = []consoleChoice{
	{"image", "Images"}, {"video", "Videos"}, {"audio", "Audio"}, {"file", "Documents and other files"},
}

// consoleChoice is one option of a select.
type consoleChoice struct{ Value, Label string }

// consoleCard is a file as the grid shows it.
type consoleCard struct {
	*fileRecord
	Thumb string // same-origin thumbnail path; empty when there is none
	// Srcset and Sizes let the tile load the narrowest width that covers
	// it instead of the thumbnail; empty for a picture served only whole.
	Srcset, Sizes string
	Badge         string // the extension shown instead of a thumbnail
	Selected      bool   // ticked again when a batch form failed
	// View is the same-origin path the gallery's viewer shows an image
	// from (with Srcset, at a width that fits the screen); empty for
	// other files, which it shows as their badge and a link.
	View string
}

// filesView is the "files" page's data.
type filesView struct {
	Files    []consoleCard
	Albums   []*album
	Types    []consoleChoice
	Album    string // the album filter: "", "none" or an album id
	Type     string
	Keyword  string
	Back     string // this page's path and query, where a batch form returns
	Filtered bool
	// Visibility is the batch form's choice of visibility.
	Visibility visibilityField
	Pager      *templates.ConsolePager
}

// fileView is the "file" page's data: the file and its edit form.
type fileView struct {
	File *fileRecord
	Kind string // image, video, audio or file: what the preview shows
	Src  string // same-origin path of the content, for the preview
	// Srcset and Sizes let the preview load a width that fits the page;
	// empty for a picture served only whole.
	Srcset, Sizes string
	Thumb         string
	Copies        []templates.ConsoleCopy
	Albums        []*album
	Name          string // the form's values, as sent when a save failed
	AlbumID       string
	// Visibility is the file's, or what a failed save sent.
	Visibility visibilityField
	Shares     []shareCard
	Expiry     []expiryChoice // the share form's choices
}

// shareCard is one share link on a file's page.
type shareCard struct {
	*share
	Copy templates.ConsoleCopy
	// LockedUntil is when the password form takes answers again, while
	// the link's wrong answers are spent.
	LockedUntil *time.Time
}

// newCard prepares a file for the grid. Thumbnails and previews are
// same-origin paths, not the absolute links: the console's CSP allows
// images from 'self' only, and the links may name another host.
func newCard(f *fileRecord) consoleCard {
	c := consoleCard{fileRecord: f}
	if canThumbnail(f.Mimetype, f.Width, f.Height) {
		c.Thumb = "/t/" + f.hash
		if c.Srcset = imageSrcset("/i/"+f.hash, f.Mimetype, f.Width); c.Srcset != "" {
			c.Sizes = tileSizes(f.Width, f.Height)
		}
	}
	if f.FileType == "image" {
		c.View = "/" + linkPrefix(f.FileType) + "/" + f.hash
	}
	c.Badge = strings.ToUpper(f.Extension)
	if c.Badge == "" {
		c.Badge = strings.ToUpper(f.FileType)
	}
	return c
}

// newFileView prepares the detail page of f, whose links are set.
func newFileView(f *fileRecord) *fileView {
	v := &fileView{File: f, Kind: f.FileType, Src: "/" + linkPrefix(f.FileType) + "/" + f.hash,
		Name: f.OriginName, AlbumID: f.AlbumID, Visibility: newVisibilityField("edit-visibility", "visibility", f.Visibility, false)}
	if canThumbnail(f.Mimetype, f.Width, f.Height) {
		v.Thumb = "/t/" + f.hash
	}
	if f.FileType == "image" {
		if v.Srcset = imageSrcset(v.Src, f.Mimetype, f.Width); v.Srcset != "" {
			v.Sizes = previewSizes
		}
	}
	v.Copies = []templates.ConsoleCopy{
		{ID: "link-url", Label: "URL", Value: f.Links.URL},
		{ID: "link-markdown", Label: "Markdown", Value: f.Links.Markdown},
		{ID: "link-html", Label: "HTML", Value: f.Links.HTML},
		{ID: "link-bbcode", Label: "BBCode", Value: f.Links.BBCode},
	}
	if f.Links.ThumbnailURL != "" {
		v.Copies = append(v.Copies, templates.ConsoleCopy{ID: "link-thumb", Label: "Thumbnail", Value: f.Links.ThumbnailURL})
	}
	return v
}

// imageSrcset lists the same-origin image at path at each narrower width
// the file host serves for its type, then whole at its own width; empty
// when it is served only whole (docs/filehost.md#sizes).
func imageSrcset(path, mime string, width int) string {
	widths := narrowerWidths(mime, width)
	if len(widths) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, w := range widths {
		fmt.Fprintf(&sb, "%s?w=%d %dw, ", path, w, w)
	}
	fmt.Fprintf(&sb, "%s %dw", path, width)
	return sb.String()
}

// tileSizes is how wide a picture is drawn in the grid (files.css): a
// tile is square, half the screen on a phone and about 16rem at most
// elsewhere, and the picture covers it, so a wide one is drawn as much
// wider than the tile as it is wider than high.
func tileSizes(width, height int) string {
	r := 1.0
	if width > height && height > 0 {
		r = float64(width) / float64(height)
	}
	return fmt.Sprintf("(max-width: 600px) %.0fvw, %.1frem", 50*r, 16*r)
}

// previewSizes is how wide the file page draws its picture (files.css):
// the page's width on a narrow screen, three fifths of the console's
// 72rem column beside the details elsewhere.
const previewSizes = "(max-width: 800px) 100vw, 42rem"

// consoleFilesBack is where a batch delete returns: the grid the form was
// on, or the first page of the grid when back is anything else.
func consoleFilesBack(back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path != "/console/files" {
		return "/console/files"
	}
	return "/console/files" + queryOf(u.Query())
}

// queryOf is "?"+q encoded, or "" when q is empty.
func queryOf(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// albumsView is the "albums" page's data.
type albumsView struct {
	Albums []*album
	Pager  *templates.ConsolePager
	Form   albumRequest // the create form's values, as sent when it failed
}

// albumView is the "album" page's data.
type albumView struct {
	Album *album
	Form  albumRequest
}
