package filehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"folio/sqlstore"
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

// ValidatePathPattern keeps storage keys inside the storage folder and
// unique: relative, no "..", only known placeholders, and {uuid} or {md5}.
func ValidatePathPattern(p string) error {
	if p == "" {
		return errors.New("must not be empty")
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || strings.Contains(p, `\`) || (len(p) > 1 && p[1] == ':') {
		return errors.New("must be a relative path")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || seg == "" {
			return errors.New(`must not contain empty, "." or ".." segments`)
		}
	}
	if !strings.Contains(p, "{uuid}") && !strings.Contains(p, "{md5}") {
		return errors.New("must contain {uuid} or {md5}")
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
		switch rest[i : i+j+1] {
		case "{year}", "{month}", "{day}", "{md5}", "{md5_8}", "{uuid}", "{ext}", "{timestamp}":
		default:
			return fmt.Errorf("unknown placeholder %s", rest[i:i+j+1])
		}
		rest = rest[i+j+1:]
	}
	return nil
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
