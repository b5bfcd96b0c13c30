package filehost

import (
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/image/webp"

	"folio/filehost/imagemeta"
	"folio/sqlstore"
	"folio/storage"
)

// Limits on the multipart fields other than the file.
const (
	maxParts      = 32
	maxFieldBytes = 4 << 10
	maxNameRunes  = 255
	// maxExtLen bounds an extension; storage keys rely on it
	// (ValidatePathPattern expands {ext} to this length).
	maxExtLen = 16
)

// incoming is a file part received into a storage temp file.
type incoming struct {
	w          storage.Writer
	originName string
	ext        string
	mimetype   string
	fileType   string
	streamed
}

// object is stored content, shared by the file records that reference it.
type object struct {
	ID        string
	MD5       string
	SHA256    string
	Hash      string
	Key       string
	Size      int64
	Mimetype  string
	Extension string
	FileType  string
	Width     int
	Height    int
	// Orientation is a JPEG's Exif orientation (1-8), 1 for the rest:
	// 5 to 8 show Width and Height swapped.
	Orientation int
	CreatedAt   time.Time

	Shared bool // the one object uploads of this content reuse (allow_duplicate off)

	hashes []string // short-hash candidates of a new object, best first
	intent string   // the 'place' intent of a new object's bytes
}

// uploadResult is the data of an upload response, the fields
// docs/api.md#uploads lists: the file id, pathname (Lsky Pro's alias of key,
// which Lsky clients read) and the rest.
type uploadResult struct {
	ID         string     `json:"id"`
	Key        string     `json:"key"`
	Name       string     `json:"name"`
	Pathname   string     `json:"pathname"`
	OriginName string     `json:"origin_name"`
	Size       int64      `json:"size"`
	Mimetype   string     `json:"mimetype"`
	Extension  string     `json:"extension"`
	MD5        string     `json:"md5"`
	Links      links      `json:"links"`
	ExpiresAt  *time.Time `json:"expires_at"`
}

func newUploadResult(f *fileRecord) uploadResult {
	return uploadResult{ID: f.ID, Key: f.Key, Name: f.Name, Pathname: f.Key, OriginName: f.OriginName,
		Size: f.Size, Mimetype: f.Mimetype, Extension: f.Extension, MD5: f.MD5, Links: f.Links, ExpiresAt: f.ExpiresAt}
}

// cleanName keeps the client's base name, valid UTF-8, without control
// characters, at most maxNameRunes long.
func cleanName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	name = path.Base(name)
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == "/" {
		return "file"
	}
	if utf8.RuneCountInString(name) > maxNameRunes {
		name = string([]rune(name)[:maxNameRunes])
	}
	return name
}

// nameExt is a file name's extension, lower-cased, when it looks like one.
func nameExt(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if !validExt(ext) {
		return ""
	}
	return ext
}

// validExt: 1 to maxExtLen lower-case letters and digits, the only
// extensions that reach a storage key through {ext}.
func validExt(ext string) bool {
	if ext == "" || len(ext) > maxExtLen {
		return false
	}
	for _, c := range ext {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// detectMIME sniffs the content; when the sniffer only knows "some bytes" or
// "some text" (or generic XML), the extension's registered type is used.
// The part's own Content-Type header is never consulted; an ISO BMFF file
// (HEIC, AVIF, MOV, 3GP) is named by its brands (imagemeta.BMFFType).
func detectMIME(head []byte, ext string) string {
	if t := imagemeta.BMFFType(head); t != "" {
		return t
	}
	sniffed := mediaType(http.DetectContentType(head))
	byExt := ""
	if ext != "" {
		byExt = mediaType(mime.TypeByExtension("." + ext))
	}
	switch sniffed {
	case "application/octet-stream", "text/plain":
		if byExt != "" {
			return byExt
		}
	case "text/xml", "application/xml":
		if strings.HasSuffix(byExt, "+xml") {
			return byExt
		}
	}
	return sniffed
}

// mediaType drops parameters such as charset.
func mediaType(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// preferredExt names the usual extension of common types, where
// mime.ExtensionsByType would offer several.
var preferredExt = map[string]string{
	"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp",
	"image/bmp": "bmp", "image/svg+xml": "svg", "image/x-icon": "ico", "image/avif": "avif",
	"video/mp4": "mp4", "video/webm": "webm", "video/avi": "avi", "audio/mpeg": "mp3",
	"audio/wave": "wav", "audio/ogg": "ogg", "application/ogg": "ogg", "audio/aiff": "aiff",
	"application/pdf": "pdf", "application/zip": "zip", "application/x-gzip": "gz",
	"text/plain": "txt", "text/html": "html", "text/xml": "xml", "application/json": "json",
	"image/heic": "heic", "image/heif": "heif", "image/heic-sequence": "heics",
	"image/heif-sequence": "heifs", "video/quicktime": "mov", "video/3gpp": "3gp", "video/3gpp2": "3g2",
}

// mimeExt derives an extension for a name that had none. The system's
// MIME tables may list any text as an extension ("c++"), so theirs is
// used only when it passes validExt.
func mimeExt(t string) string {
	if e, ok := preferredExt[t]; ok {
		return e
	}
	if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
		if e := strings.ToLower(strings.TrimPrefix(exts[0], ".")); validExt(e) {
			return e
		}
	}
	return "bin"
}

// fileTypeOf maps a MIME type to a file's file_type: image, video, audio
// or file.
func fileTypeOf(t string) string {
	switch {
	case strings.HasPrefix(t, "image/"):
		return "image"
	case strings.HasPrefix(t, "video/"):
		return "video"
	case strings.HasPrefix(t, "audio/"):
		return "audio"
	}
	return "file"
}

// typeAllowed applies allowed_types: empty allows all; entries with a
// slash are MIME types ("image/*" matches a whole family), others are
// extensions.
func typeAllowed(allowed List, mimetype, ext string) bool {
	if len(allowed) == 0 {
		return true
	}
	for _, a := range allowed {
		switch {
		case strings.HasSuffix(a, "/*"):
			if strings.HasPrefix(mimetype, strings.TrimSuffix(a, "*")) {
				return true
			}
		case strings.Contains(a, "/"):
			if a == mimetype {
				return true
			}
		case a == ext:
			return true
		}
	}
	return false
}

// buildKey expands a path pattern. A pattern without {uuid} still gets a
// unique key: a short id is added before the extension, so two different
// uploads can never name the same key.
func buildKey(pattern string, now time.Time, md5hex, ext string) string {
	now = now.UTC()
	return keyParts{
		year:      fmt.Sprintf("%04d", now.Year()),
		month:     fmt.Sprintf("%02d", int(now.Month())),
		day:       fmt.Sprintf("%02d", now.Day()),
		md5:       md5hex,
		uuid:      sqlstore.NewID(),
		ext:       ext,
		timestamp: strconv.FormatInt(now.Unix(), 10),
	}.expand(pattern)
}

// keyParts are the values of a path pattern's placeholders for one upload.
type keyParts struct {
	year, month, day, md5, uuid, ext, timestamp string
}

// longestKeyParts are the longest values a placeholder can take, for dates
// up to the year 9999: expanded with them, a pattern gives its longest
// keys (ValidatePathPattern). Every value, here as in buildKey, is made of
// lower-case letters, digits and "-" only.
func longestKeyParts() keyParts {
	return keyParts{
		year:      "9999",
		month:     "12",
		day:       "31",
		md5:       strings.Repeat("f", 32),
		uuid:      "ffffffff-ffff-7fff-bfff-ffffffffffff",
		ext:       strings.Repeat("x", maxExtLen),
		timestamp: "253402300799", // 9999-12-31T23:59:59Z
	}
}

func (k keyParts) expand(pattern string) string {
	key := strings.NewReplacer(
		"{year}", k.year,
		"{month}", k.month,
		"{day}", k.day,
		"{md5}", k.md5,
		"{md5_8}", k.md5[:8],
		"{uuid}", k.uuid,
		"{ext}", k.ext,
		"{timestamp}", k.timestamp,
	).Replace(pattern)
	if !strings.Contains(pattern, "{uuid}") {
		suffix := "-" + strings.ReplaceAll(k.uuid, "-", "")[20:]
		if dot := strings.LastIndexByte(key, '.'); dot > strings.LastIndexByte(key, '/') {
			key = key[:dot] + suffix + key[dot:]
		} else {
			key += suffix
		}
	}
	return key
}

// shortHashCandidates lists the short hashes to try, shortest first: MD5
// prefixes from 8 characters, or SHA-256 prefixes when another content
// already has this MD5, and finally the object id, which is unique.
func shortHashCandidates(md5hex, sha256hex, objectID string, md5Taken bool) []string {
	var out []string
	if !md5Taken {
		for n := 8; n <= len(md5hex); n++ {
			out = append(out, md5hex[:n])
		}
	}
	for n := 8; n <= len(sha256hex); n++ {
		out = append(out, sha256hex[:n])
	}
	return append(out, strings.ReplaceAll(objectID, "-", ""))
}

// configDecoder picks the header decoder for a type explicitly, rather
// than through image's global format registry.
func configDecoder(mimetype string) func(io.Reader) (image.Config, error) {
	switch mimetype {
	case "image/jpeg":
		return jpeg.DecodeConfig
	case "image/png":
		return png.DecodeConfig
	case "image/gif":
		return gif.DecodeConfig
	case "image/webp":
		return webp.DecodeConfig
	}
	return nil
}
