package filehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"folio/sqlstore"
	"folio/storage"
)

// UploadSettings are the upload settings group, changed at runtime through
// the settings API.
type UploadSettings struct {
	AllowGuestUpload  bool   `json:"allow_guest_upload"`
	AllowDuplicate    bool   `json:"allow_duplicate"`
	AllowRegister     bool   `json:"allow_register"`
	MaxFileSize       int64  `json:"max_file_size"`
	ForbiddenExts     List   `json:"forbidden_exts"`
	AllowedTypes      List   `json:"allowed_types"`
	PathPattern       string `json:"path_pattern"`
	DefaultQuotaBytes int64  `json:"default_quota_bytes"`
	StripMetadata     bool   `json:"strip_metadata"`
}

// DefaultPathPattern is the default storage key pattern.
const DefaultPathPattern = "{year}/{month}/{md5_8}/{uuid}.{ext}"

// DefaultUploadSettings are the built-in values, before any configuration.
func DefaultUploadSettings() UploadSettings {
	return UploadSettings{
		MaxFileSize:       100 << 20,
		ForbiddenExts:     List{"php", "phtml", "exe", "bat", "cmd", "sh", "js", "html", "htm", "xhtml", "jar", "msi"},
		AllowedTypes:      List{},
		PathPattern:       DefaultPathPattern,
		DefaultQuotaBytes: 1 << 30,
		StripMetadata:     true,
	}
}

// Validate checks the values; the error is a *sqlstore.FieldError naming the
// first offending key.
func (u UploadSettings) Validate() error {
	bad := func(key, msg string) error { return &sqlstore.FieldError{Key: key, Msg: msg} }
	switch {
	case u.MaxFileSize < 1:
		return bad("upload.max_file_size", "must be a positive number of bytes")
	case u.DefaultQuotaBytes < 0:
		return bad("upload.default_quota_bytes", "must be 0 (no quota) or more")
	}
	if err := ValidatePathPattern(u.PathPattern); err != nil {
		return bad("upload.path_pattern", err.Error())
	}
	return nil
}

// ValidatePathPattern proves that the pattern gives, for every possible
// upload, a storage key the store accepts (storage.CheckKey) and that stays
// out of the folders the store and the file host keep for themselves; and
// that keys are unique, through {uuid} or {md5}. The fixed text is checked
// as written; the lengths, after expanding every placeholder to its longest
// value (longestKeyParts) and adding the suffix of a pattern without
// {uuid}, exactly as buildKey does (docs/filehost.md, "Storage keys and
// path_pattern").
func ValidatePathPattern(p string) error {
	switch {
	case p == "":
		return errors.New("must not be empty")
	case !utf8.ValidString(p):
		return errors.New("must be valid UTF-8")
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("must not contain control characters")
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return errors.New("must be a relative path")
	}
	segs := strings.Split(p, "/")
	for _, seg := range segs {
		if seg == ".." || seg == "." || seg == "" {
			return errors.New(`must not contain empty, "." or ".." segments`)
		}
	}
	if strings.HasPrefix(p, ".") {
		return errors.New(`must not start with a name beginning with "." (such folders, as .tmp, are the storage's own)`)
	}
	rest := p
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return errors.New("has an unclosed {")
		}
		if _, ok := placeholderPattern(rest[i : i+j+1]); !ok {
			return fmt.Errorf("unknown placeholder %s", rest[i:i+j+1])
		}
		rest = rest[i+j+1:]
	}
	if !strings.Contains(p, "{uuid}") && !strings.Contains(p, "{md5}") {
		return errors.New("must contain {uuid} or {md5}")
	}
	if err := storage.CheckKey(longestKeyParts().expand(p)); err != nil {
		var ke *storage.KeyError
		if errors.As(err, &ke) {
			return errors.New("would give storage keys with " + ke.Reason)
		}
		return err
	}
	if len(segs) > 1 && mayName(segs[0], thumbDir) {
		if strings.EqualFold(segs[0], thumbDir) {
			return errors.New("must not put files in the " + thumbDir + " folder, which holds thumbnails")
		}
		return fmt.Errorf("must not start with a folder that may be named %s (the folder of thumbnails), as %s may be",
			thumbDir, segs[0])
	}
	if len(segs) > 1 && mayName(segs[0], tusDir) {
		if strings.EqualFold(segs[0], tusDir) {
			return errors.New("must not put files in the " + tusDir + " folder, which holds resumable uploads")
		}
		return fmt.Errorf("must not start with a folder that may be named %s (the folder of resumable uploads), as %s may be",
			tusDir, segs[0])
	}
	return nil
}

// placeholderPattern is a regular expression matching every value of a
// placeholder, as buildKey writes it.
func placeholderPattern(ph string) (string, bool) {
	switch ph {
	case "{year}":
		return `[0-9]{4}`, true
	case "{month}", "{day}":
		return `[0-9]{2}`, true
	case "{md5}":
		return `[0-9a-f]{32}`, true
	case "{md5_8}":
		return `[0-9a-f]{8}`, true
	case "{uuid}":
		return `[0-9a-f-]{36}`, true
	case "{ext}":
		return `[a-z0-9]{1,` + strconv.Itoa(maxExtLen) + `}`, true
	case "{timestamp}":
		return `-?[0-9]{1,12}`, true
	}
	return "", false
}

// mayName reports whether a name of a pattern, placeholders expanded, can
// equal name, regardless of case (one folder on a case-insensitive file
// system). seg holds only known placeholders.
func mayName(seg, name string) bool {
	if !strings.Contains(seg, "{") {
		return strings.EqualFold(seg, name)
	}
	var re strings.Builder
	re.WriteString("(?i)^")
	for seg != "" {
		i := strings.IndexByte(seg, '{')
		if i < 0 {
			re.WriteString(regexp.QuoteMeta(seg))
			break
		}
		j := strings.IndexByte(seg[i:], '}')
		ph, _ := placeholderPattern(seg[i : i+j+1])
		re.WriteString(regexp.QuoteMeta(seg[:i]) + "(?:" + ph + ")")
		seg = seg[i+j+1:]
	}
	re.WriteString("$")
	m, err := regexp.Compile(re.String())
	// It always compiles (quoted text and fixed classes); should it not,
	// refusing the pattern is the safe answer.
	return err != nil || m.MatchString(name)
}

// List is a list of short words (extensions, MIME types). In JSON it is
// written as one comma-separated string, like the configuration file, and
// read from either such a string or an array of strings.
type List []string

func (l List) MarshalJSON() ([]byte, error) { return json.Marshal(strings.Join(l, ",")) }

func (l *List) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = ParseList(s)
		return nil
	}
	var arr []string
	if err := json.Unmarshal(b, &arr); err != nil {
		return errors.New("want a comma-separated string or an array of strings")
	}
	*l = ParseList(strings.Join(arr, ","))
	return nil
}

// ParseList splits a comma-separated list, trimming blanks and leading dots
// and lower-casing entries.
func ParseList(s string) List {
	out := List{}
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(p), "."))
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// RegisterSettings registers the upload group with base as its configured
// values.
func RegisterSettings(reg *sqlstore.Registry, base UploadSettings) *sqlstore.Group[UploadSettings] {
	return sqlstore.Register(reg, "upload", base, UploadSettings.Validate)
}

// settings reads the file host's runtime settings.
type settings struct {
	upload *sqlstore.Group[UploadSettings]
}

// currentSettings are the file host's settings at one moment.
type currentSettings struct{ Upload UploadSettings }

func (s settings) Get(ctx context.Context) currentSettings {
	return currentSettings{Upload: s.upload.Get(ctx)}
}
