package filehost

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"folio/sqlstore"
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

func TestValidatePathPattern(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{DefaultPathPattern, true},
		{"{md5}.{ext}", true},
		{"{year}/{month}/{day}/{timestamp}-{uuid}", true},
		{"", false},
		{"/abs/{uuid}", false},
		{`C:/x/{uuid}`, false},
		{`a\{uuid}`, false},
		{"a/../{uuid}", false},
		{"./{uuid}", false},
		{"a//{uuid}", false},
		{"{year}/{md5_8}.{ext}", false},
		{"{uuid}/{hostname}", false},
		{"{uuid}/{year", false},
		{"{uuid}/", false},
	}
	for _, tt := range tests {
		if err := ValidatePathPattern(tt.in); (err == nil) != tt.ok {
			t.Errorf("ValidatePathPattern(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}
