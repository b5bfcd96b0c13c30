package filehost

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
	"folio/storage"
)

func TestUploadSettingsValidateNamesBadKey(t *testing.T) {
	tests := []struct {
		name   string
		key    string // "" when valid
		mutate func(*UploadSettings)
	}{
		{"defaults", "", func(*UploadSettings) {}},
		{"no quota", "", func(u *UploadSettings) { u.DefaultQuotaBytes = 0 }},
		{"no size", "upload.max_file_size", func(u *UploadSettings) { u.MaxFileSize = 0 }},
		{"negative quota", "upload.default_quota_bytes", func(u *UploadSettings) { u.DefaultQuotaBytes = -1 }},
		{"escaping path", "upload.path_pattern", func(u *UploadSettings) { u.PathPattern = "../{uuid}" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := DefaultUploadSettings()
			tt.mutate(&u)
			err := u.Validate()
			var fe *sqlstore.FieldError
			if tt.key == "" && err != nil || tt.key != "" && (!errors.As(err, &fe) || fe.Key != tt.key) {
				t.Fatalf("Validate = %v, want a FieldError for %q", err, tt.key)
			}
		})
	}
}

func TestListJSON(t *testing.T) {
	raw, err := json.Marshal(List{"jpg", "png"})
	if err != nil || string(raw) != `"jpg,png"` {
		t.Fatalf("Marshal = %s, %v; want \"jpg,png\"", raw, err)
	}
	tests := []struct {
		in   string
		want List
		ok   bool
	}{
		{`"jpg, .PNG"`, List{"jpg", "png"}, true},
		{`["jpg", ".PNG", ""]`, List{"jpg", "png"}, true},
		{`""`, List{}, true},
		{`[]`, List{}, true},
		{`5`, nil, false},
		{`[1, 2]`, nil, false},
	}
	for _, tt := range tests {
		var l List
		err := json.Unmarshal([]byte(tt.in), &l)
		if (err == nil) != tt.ok || (tt.ok && !slices.Equal(l, tt.want)) {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q, ok=%v", tt.in, l, err, tt.want, tt.ok)
		}
	}
}

// pathPatternCases are patterns with the problem ValidatePathPattern must
// name ("" when valid). Lengths count the longest expansion: {uuid} 36
// bytes, {md5} 32, {ext} 16, and 13 for the suffix of a pattern without
// {uuid}.
func pathPatternCases() []struct{ in, problem string } {
	n := func(k int) string { return strings.Repeat("n", k) }
	return []struct{ in, problem string }{
		{DefaultPathPattern, ""},
		{"{md5}.{ext}", ""},
		{"{year}/{month}/{day}/{timestamp}-{uuid}", ""},
		{"files/{md5_8}/{md5}", ""},
		{"v1.2/{md5}", ""},
		{"图片/{uuid}.{ext}", ""},
		{"{year}/thumbs/{uuid}", ""},
		{"thumbsup/{uuid}", ""},
		{"{year}/" + n(219) + "{uuid}", ""},                      // a name of exactly 255 bytes
		{"{year}/" + n(220) + "{uuid}", "longer than 255 bytes"}, // 256
		{n(210) + "{md5}", ""},                                   // 210+32+13 = 255
		{n(211) + "{md5}", "longer than 255 bytes"},
		{n(193) + "{md5}.{ext}", ""}, // 193+32+13+1+16 = 255, the suffix before the dot
		{n(194) + "{md5}.{ext}", "longer than 255 bytes"},
		{strings.Repeat("d/", 15) + "{uuid}", ""}, // 16 names
		{strings.Repeat("d/", 16) + "{uuid}", "more than 16 names"},
		{strings.Repeat(n(250)+"/", 4) + "{uuid}", "more than 1024 bytes"},

		// The five patterns that used to make every upload fail.
		{".tmp/{uuid}", `beginning with "."`},
		{".tmp/x/{uuid}.{ext}", `beginning with "."`},
		{strings.Repeat("{md5}", 16), "longer than 255 bytes"},
		{strings.Repeat("a/", 600) + "{uuid}", "more than 1024 bytes"},
		{"{md5}\x00", "control characters"},

		{"{year}/a\tb/{uuid}", "control characters"},
		{"{year}/a\x7fb/{uuid}", "control characters"},
		{"{year}/\xff/{uuid}", "UTF-8"},
		{".files/{uuid}", `beginning with "."`},
		{".{uuid}", `beginning with "."`},
		{"thumbs/{uuid}", "thumbs folder"},
		{"Thumbs/{year}/{uuid}", "thumbs folder"},
		{"{ext}/{uuid}", "may be named thumbs"},
		{"{ext}s/{uuid}", "may be named thumbs"},
		{"thu{ext}/{uuid}", "may be named thumbs"},
		{"tus/{uuid}", "tus folder"},
		{"TUS/{year}/{uuid}", "tus folder"},
		{"tu{ext}/{uuid}", "may be named tus"},
		{"{year}/tus/{uuid}", ""},
		{"{ext}-files/{uuid}", ""},
		{"{md5_8}/{uuid}", ""},
		{"{ext}", "{uuid} or {md5}"},
		{"", "empty"},
		{"/abs/{uuid}", "relative"},
		{`C:/x/{uuid}`, "relative"},
		{`a\{uuid}`, "relative"},
		{"a/../{uuid}", `".."`},
		{"./{uuid}", `"."`},
		{"a//{uuid}", "empty"},
		{"{year}/{md5_8}.{ext}", "{uuid} or {md5}"},
		{"{uuid}/{hostname}", "unknown placeholder {hostname}"},
		{"{uuid}/{year", "unclosed"},
		{"{uuid}/", "empty"},
	}
}

func TestValidatePathPatternNamesTheProblem(t *testing.T) {
	for _, tt := range pathPatternCases() {
		err := ValidatePathPattern(tt.in)
		if tt.problem == "" && err != nil || tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)) {
			t.Errorf("ValidatePathPattern(%.60q) = %v, want %q", tt.in, err, tt.problem)
		}
	}
}

// TestAcceptedPatternsStoreFiles: every pattern the rule accepts stores a
// file on a real local store, with the longest values and with real ones.
func TestAcceptedPatternsStoreFiles(t *testing.T) {
	store, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	longest := longestKeyParts()
	for _, tt := range pathPatternCases() {
		if tt.problem != "" {
			continue
		}
		for _, key := range []string{
			longest.expand(tt.in),
			buildKey(tt.in, time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC), "0cc175b9c0f1b6a831c399e269772661", "png"),
		} {
			w, err := store.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, "x")
			if err := w.Commit(key); err != nil {
				t.Fatalf("pattern %.60q: Commit(%.60q): %v", tt.in, key, err)
			}
			if strings.HasPrefix(key, thumbDir+"/") || strings.HasPrefix(key, ".") {
				t.Fatalf("pattern %.60q stores %q among the store's or the thumbnails' files", tt.in, key)
			}
			if _, err := store.Stat(ctx, key); err != nil {
				t.Fatalf("pattern %.60q: Stat(%.60q): %v", tt.in, key, err)
			}
		}
	}
}

func TestExtensionsAreShortLowerCaseLettersAndDigits(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"a.PNG", "png"},
		{"a.tar.gz", "gz"},
		{"a." + strings.Repeat("x", maxExtLen), strings.Repeat("x", maxExtLen)},
		{"a." + strings.Repeat("x", maxExtLen+1), ""},
		{"a.c++", ""},
		{"a.p g", ""},
		{"a.é", ""},
		{"a.", ""},
		{"noext", ""},
	} {
		if got := nameExt(tt.name); got != tt.want {
			t.Errorf("nameExt(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Whatever the system's MIME tables say, a derived extension is valid.
	for _, mt := range []string{"image/png", "text/x-c++src", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"font/woff2", "application/x-unknown-folio", "application/octet-stream"} {
		if got := mimeExt(mt); !validExt(got) {
			t.Errorf("mimeExt(%q) = %q, not a valid extension", mt, got)
		}
	}
}

// TestStoredPathPatternTheRulesRefuseFallsBack: an override an older
// version stored, which the rules now refuse, is ignored: uploads use the
// configured pattern instead of failing.
func TestStoredPathPatternTheRulesRefuseFallsBack(t *testing.T) {
	for name, stored := range map[string]string{
		"hidden folder": `".tmp/{uuid}"`,
		"long name":     `"` + strings.Repeat("{md5}", 16) + `"`,
		"thumbs":        `"thumbs/{uuid}"`,
	} {
		t.Run(name, func(t *testing.T) {
			db := sqlstoretest.Open(t)
			if _, err := db.Exec(context.Background(), "INSERT INTO settings (key, value, updated_at) VALUES ('upload.path_pattern', $1, 0)", stored); err != nil {
				t.Fatal(err)
			}
			e := newTestEnvOn(t, db, t.TempDir())
			if got := e.settings.Get(context.Background()).PathPattern; got != DefaultPathPattern {
				t.Fatalf("path_pattern = %q, want the configured %q", got, DefaultPathPattern)
			}
			_, c := e.newUser("alice", 0)
			u := mustUpload(t, c, "a.png", pngBytes(t, 2, 2))
			if !regexp.MustCompile(`^\d{4}/\d{2}/[0-9a-f]{8}/[0-9a-f-]{36}\.png$`).MatchString(u.Key) {
				t.Fatalf("key %q does not follow the configured pattern", u.Key)
			}
		})
	}
}
