package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Settings are the runtime settings of interface.md (groups site, post,
// render, ai) plus the file-hosting group upload. They start from the
// configuration file; PUT /api/v1/admin/settings stores overrides in the
// database that win from then on.
type Settings struct {
	Site   SiteSettings   `json:"site"`
	Post   PostSettings   `json:"post"`
	Render RenderSettings `json:"render"`
	AI     AISettings     `json:"ai"`
	Upload UploadSettings `json:"upload"`
}

type SiteSettings struct {
	SiteName    string `json:"site_name"`
	SiteURL     string `json:"site_url"`
	Description string `json:"description"`
	Keywords    string `json:"keywords"`
	Favicon     string `json:"favicon"`
	Logo        string `json:"logo"`
	ICP         string `json:"icp"`
	Footer      string `json:"footer"`
}

type PostSettings struct {
	PostsPerPage    int    `json:"posts_per_page"`
	EnableComment   bool   `json:"enable_comment"`
	EnableTOC       bool   `json:"enable_toc"`
	SummaryLength   int    `json:"summary_length"`
	DefaultCoverURL string `json:"default_cover_url"`
}

type RenderSettings struct {
	RenderMode string `json:"render_mode"`
	APIPrefix  string `json:"api_prefix"`
	EnableCORS bool   `json:"enable_cors"`
}

type AISettings struct {
	Enabled     bool   `json:"enabled"`
	Provider    string `json:"provider"`
	APIKey      string `json:"api_key"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url"`
	AutoSummary bool   `json:"auto_summary"`
	AutoTag     bool   `json:"auto_tag"`
}

type UploadSettings struct {
	AllowGuestUpload  bool   `json:"allow_guest_upload"`
	AllowDuplicate    bool   `json:"allow_duplicate"`
	AllowRegister     bool   `json:"allow_register"`
	MaxFileSize       int64  `json:"max_file_size"`
	ForbiddenExts     List   `json:"forbidden_exts"`
	AllowedTypes      List   `json:"allowed_types"`
	PathPattern       string `json:"path_pattern"`
	DefaultQuotaBytes int64  `json:"default_quota_bytes"`
}

// DefaultPathPattern is interface.md's storage key pattern.
const DefaultPathPattern = "{year}/{month}/{md5_8}/{uuid}.{ext}"

// DefaultSettings are the built-in values, before any configuration.
func DefaultSettings() Settings {
	return Settings{
		Site: SiteSettings{SiteName: "Folio", Description: "A blog and file host"},
		Post: PostSettings{PostsPerPage: 10, EnableComment: true, EnableTOC: true, SummaryLength: 200},
		Render: RenderSettings{
			RenderMode: "classic",
			APIPrefix:  "/api/v1",
		},
		AI: AISettings{Provider: "openai"},
		Upload: UploadSettings{
			MaxFileSize:       100 << 20,
			ForbiddenExts:     List{"php", "phtml", "exe", "bat", "cmd", "sh", "js", "html", "htm", "xhtml", "jar", "msi"},
			AllowedTypes:      List{},
			PathPattern:       DefaultPathPattern,
			DefaultQuotaBytes: 1 << 30,
		},
	}
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

// FieldError names the setting that failed validation.
type FieldError struct {
	Key string // dotted key, e.g. "render.render_mode"
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

// Validate checks the settings' values; the error is a *FieldError naming the
// first offending key.
func (s Settings) Validate() error {
	bad := func(key, msg string) error { return &FieldError{Key: key, Msg: msg} }
	switch {
	case s.Render.RenderMode != "classic" && s.Render.RenderMode != "headless":
		return bad("render.render_mode", "must be classic or headless")
	case s.Render.APIPrefix != "/api/v1":
		return bad("render.api_prefix", "must be /api/v1")
	case s.Post.PostsPerPage < 1 || s.Post.PostsPerPage > 100:
		return bad("post.posts_per_page", "must be between 1 and 100")
	case s.Post.SummaryLength < 1 || s.Post.SummaryLength > 10000:
		return bad("post.summary_length", "must be between 1 and 10000")
	case s.AI.Provider != "openai" && s.AI.Provider != "ollama":
		return bad("ai.provider", "must be openai or ollama")
	case s.AI.BaseURL != "" && !strings.HasPrefix(s.AI.BaseURL, "http://") && !strings.HasPrefix(s.AI.BaseURL, "https://"):
		return bad("ai.base_url", "must be an http or https URL")
	case s.Upload.MaxFileSize < 1:
		return bad("upload.max_file_size", "must be a positive number of bytes")
	case s.Upload.DefaultQuotaBytes < 0:
		return bad("upload.default_quota_bytes", "must be 0 (no quota) or more")
	}
	if err := ValidatePathPattern(s.Upload.PathPattern); err != nil {
		return bad("upload.path_pattern", err.Error())
	}
	return nil
}

// ValidatePathPattern enforces decisions §4: relative, no "..", only known
// placeholders, and {uuid} or {md5} so that keys are unique.
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

// flatten turns settings into dotted keys and their JSON values.
func (s Settings) flatten() map[string]json.RawMessage {
	raw, _ := json.Marshal(s) // plain struct of marshalable fields
	var groups map[string]map[string]json.RawMessage
	_ = json.Unmarshal(raw, &groups)
	out := make(map[string]json.RawMessage)
	for g, fields := range groups {
		for f, v := range fields {
			out[g+"."+f] = v
		}
	}
	return out
}

// withValues returns a copy of s with the given dotted keys set from JSON
// values. Unknown keys and values of the wrong type are errors naming the key.
func (s Settings) withValues(values map[string]json.RawMessage) (Settings, error) {
	flat := s.flatten()
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	groups := map[string]map[string]json.RawMessage{}
	for k, v := range flat {
		g, f, _ := strings.Cut(k, ".")
		if groups[g] == nil {
			groups[g] = map[string]json.RawMessage{}
		}
		groups[g][f] = v
	}
	for _, k := range keys {
		if _, ok := flat[k]; !ok {
			return s, &FieldError{Key: k, Msg: "unknown setting"}
		}
		g, f, _ := strings.Cut(k, ".")
		groups[g][f] = values[k]
		// Decode each key on its own so a type error names it.
		one, _ := json.Marshal(map[string]map[string]json.RawMessage{g: {f: values[k]}})
		var probe Settings
		if err := json.Unmarshal(one, &probe); err != nil {
			return s, &FieldError{Key: k, Msg: "wrong type of value"}
		}
	}
	raw, _ := json.Marshal(groups)
	var out Settings
	if err := json.Unmarshal(raw, &out); err != nil {
		return s, fmt.Errorf("sqlstore: settings: %w", err)
	}
	return out, nil
}

// Keys lists every dotted setting key, sorted.
func Keys() []string {
	flat := DefaultSettings().flatten()
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SetText sets one dotted key from its configuration-file text form:
// integers, booleans (true/false/1/0/yes/no/on/off), comma lists or strings,
// as the key's type requires.
func (s *Settings) SetText(key, text string) error {
	cur, ok := s.flatten()[key]
	if !ok {
		return &FieldError{Key: key, Msg: "unknown setting"}
	}
	var v any
	switch {
	case len(cur) > 0 && (cur[0] == 't' || cur[0] == 'f'): // bool
		b, err := ParseBool(text)
		if err != nil {
			return &FieldError{Key: key, Msg: "want true or false"}
		}
		v = b
	case len(cur) > 0 && (cur[0] == '-' || cur[0] >= '0' && cur[0] <= '9'): // number
		n, err := ParseSize(text)
		if err != nil {
			return &FieldError{Key: key, Msg: "want a whole number"}
		}
		v = n
	default:
		v = text
	}
	raw, _ := json.Marshal(v)
	next, err := s.withValues(map[string]json.RawMessage{key: raw})
	if err != nil {
		return err
	}
	*s = next
	return nil
}

// ParseBool accepts the usual spellings of a boolean in configuration files.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", s)
}

// ParseSize parses a whole number with an optional binary size suffix
// (K, KB, KiB, M, MB, MiB, G, GB, GiB; all powers of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(s)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(upper, suf.s) {
			mult = suf.m
			s = strings.TrimSpace(s[:len(s)-len(suf.s)])
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	// Both signs: a negative size that wraps around would become huge.
	if n > (1<<62)/mult || n < -(1<<62)/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// SettingsStore holds the current settings: the configured base plus the
// overrides stored in the database. Every process re-reads the overrides at
// most once per RefreshInterval, so a change made through another process
// sharing the database shows up within that time; changes made through this
// process show at once.
type SettingsStore struct {
	db   *DB
	base Settings

	mu       sync.Mutex
	cur      Settings
	loadedAt time.Time
}

// RefreshInterval bounds how stale another process's settings change may be.
const RefreshInterval = time.Second

// NewSettingsStore loads the overrides over base.
func NewSettingsStore(ctx context.Context, db *DB, base Settings) (*SettingsStore, error) {
	s := &SettingsStore{db: db, base: base}
	if err := s.reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *SettingsStore) reload(ctx context.Context) error {
	rows, err := s.db.Query(ctx, "SELECT key, value FROM settings")
	if err != nil {
		return fmt.Errorf("sqlstore: load settings: %w", err)
	}
	defer rows.Close()
	values := map[string]json.RawMessage{}
	known := s.base.flatten()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return fmt.Errorf("sqlstore: load settings: %w", err)
		}
		if _, ok := known[k]; ok && json.Valid([]byte(v)) {
			values[k] = json.RawMessage(v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: load settings: %w", err)
	}
	cur, err := s.base.withValues(values)
	if err != nil {
		return fmt.Errorf("sqlstore: stored settings: %w", err)
	}
	s.mu.Lock()
	s.cur, s.loadedAt = cur, time.Now()
	s.mu.Unlock()
	return nil
}

// Get returns the current settings. If the database cannot be read the last
// known settings are returned: a blip must not turn every request into a 500.
func (s *SettingsStore) Get(ctx context.Context) Settings {
	s.mu.Lock()
	cur, fresh := s.cur, time.Since(s.loadedAt) < RefreshInterval
	s.mu.Unlock()
	if fresh {
		return cur
	}
	if err := s.reload(ctx); err != nil {
		s.mu.Lock()
		s.loadedAt = time.Now() // back off; retry after the next interval
		s.mu.Unlock()
		return cur
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Put validates next and stores, as overrides, every key whose value differs
// from the configured base; keys equal to the base lose their override, so
// they follow the configuration file again.
func (s *SettingsStore) Put(ctx context.Context, next Settings) error {
	if err := next.Validate(); err != nil {
		return err
	}
	base, flat := s.base.flatten(), next.flatten()
	now := FromTime(time.Now())
	err := s.db.Tx(ctx, func(tx *Tx) error {
		for k, v := range flat {
			if bytes.Equal(base[k], v) {
				if _, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = $1", k); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.Exec(ctx, `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
				k, string(v), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlstore: save settings: %w", err)
	}
	s.mu.Lock()
	s.cur, s.loadedAt = next, time.Now()
	s.mu.Unlock()
	return nil
}
