package filehost

import (
	"html"
	"strings"
	"time"
)

// fileRecord is a stored file as the API shows it (docs/api.md#files): the
// per-user record joined with the object that holds its content.
type fileRecord struct {
	ID         string     `json:"id"`
	Key        string     `json:"key"`
	Name       string     `json:"name"`
	OriginName string     `json:"origin_name"`
	Size       int64      `json:"size"`
	Mimetype   string     `json:"mimetype"`
	Extension  string     `json:"extension"`
	MD5        string     `json:"md5"`
	FileType   string     `json:"file_type"`
	Width      int        `json:"width"`
	Height     int        `json:"height"`
	AlbumID    string     `json:"album_id"`
	Visibility string     `json:"visibility"` // public, unlisted or restricted
	IsPublic   bool       `json:"is_public"`  // visibility is public, for older clients
	Links      links      `json:"links"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"` // nil: kept until deleted

	userID   string
	objectID string
	hash     string
}

// links are the absolute links of a file, as docs/api.md#uploads lists
// them for the upload answer; markdown_with_link is Lsky Pro's extra.
type links struct {
	URL              string `json:"url"`
	ThumbnailURL     string `json:"thumbnail_url"`
	Markdown         string `json:"markdown"`
	HTML             string `json:"html"`
	BBCode           string `json:"bbcode"`
	DeleteURL        string `json:"delete_url"`
	MarkdownWithLink string `json:"markdown_with_link"`
}

// setLinks fills the links from base (scheme://host). The snippets name the
// file by the name it was uploaded with, as Lsky Pro's do: alt text is for
// people, and the stored name is a UUID.
func (f *fileRecord) setLinks(base string) {
	url := base + "/" + linkPrefix(f.FileType) + "/" + f.hash
	alt := f.OriginName
	if alt == "" {
		alt = f.Name
	}
	md := "![" + markdownEscaper.Replace(alt) + "](" + url + ")"
	f.Links = links{
		URL:              url,
		Markdown:         md,
		HTML:             `<img src="` + html.EscapeString(url) + `" alt="` + html.EscapeString(alt) + `" />`,
		BBCode:           "[img]" + url + "[/img]",
		DeleteURL:        base + "/api/v1/files/" + f.ID,
		MarkdownWithLink: "[" + md + "](" + url + ")",
	}
	if canThumbnail(f.Mimetype, f.Width, f.Height) {
		f.Links.ThumbnailURL = base + "/t/" + f.hash
	}
}

var markdownEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)

// linkPrefix is the short-link path segment of a file type.
func linkPrefix(fileType string) string {
	switch fileType {
	case "image":
		return "i"
	case "video":
		return "v"
	case "audio":
		return "a"
	}
	return "f"
}

func keyBase(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[i+1:]
	}
	return key
}

// fileQuery is the filter of a file list.
type fileQuery struct {
	UserID   string
	AlbumID  string
	NoAlbum  bool // only files in no album; AlbumID is then ignored
	FileType string
	Keyword  string
	OrderBy  string // created_at, size or origin_name
	Desc     bool
	Limit    int
	Offset   int
}

// filePatch is the PATCH body: only the fields sent change.
type filePatch struct {
	OriginName *string `json:"origin_name"`
	AlbumID    *string `json:"album_id"`
	Visibility *string `json:"visibility"`
	IsPublic   *bool   `json:"is_public"` // true: public, false: unlisted
}

// clean trims the fields sent and checks the name and the visibility,
// which it leaves in Visibility alone; an album_id of "" takes the file
// out of its album. Whether the album is the caller's is the
// store's to check.
func (p *filePatch) clean() error {
	if p.OriginName != nil {
		name := strings.TrimSpace(*p.OriginName)
		if name == "" || len(name) > 1024 || cleanName(name) != name {
			return invalid("origin_name must be a non-empty file name")
		}
		p.OriginName = &name
	}
	if p.AlbumID != nil {
		a := strings.ToLower(strings.TrimSpace(*p.AlbumID))
		p.AlbumID = &a
	}
	v, err := pickVisibility(p.Visibility, p.IsPublic, "is_public")
	if err != nil {
		return err
	}
	p.Visibility, p.IsPublic = nil, nil
	if v != "" {
		p.Visibility = &v
	}
	return nil
}

// maxBatch bounds one batch delete.
const maxBatch = 1000

// checkBatch checks the number of ids of a batch delete.
func checkBatch(ids []string) error {
	if len(ids) == 0 {
		return invalid("ids must list at least one file id")
	}
	if len(ids) > maxBatch {
		return invalid("ids may list at most 1000 file ids")
	}
	return nil
}

func dedupIDs(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// adminFile is a file in the admin list, with its owner.
type adminFile struct {
	*fileRecord
	UserID   string `json:"user_id"`
	Username string `json:"username"`
}

// purge names stored content whose last record went away.
type purge struct {
	keys    []string // the content key and both thumbnail keys
	intents []string // the 'delete' intent of each key
}
