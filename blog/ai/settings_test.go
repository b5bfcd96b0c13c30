package ai

import (
	"errors"
	"testing"

	"folio/sqlstore"
)

func TestSettingsValidateNamesBadKey(t *testing.T) {
	tests := []struct {
		name   string
		key    string // "" when valid
		mutate func(*Settings)
	}{
		{"defaults", "", func(*Settings) {}},
		{"ollama on a local URL", "", func(s *Settings) { s.Provider, s.BaseURL = "ollama", "http://127.0.0.1:11434" }},
		{"unknown provider", "ai.provider", func(s *Settings) { s.Provider = "skynet" }},
		{"base URL not http", "ai.base_url", func(s *Settings) { s.BaseURL = "ftp://x" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			tt.mutate(&s)
			err := s.Validate()
			var fe *sqlstore.FieldError
			if tt.key == "" && err != nil || tt.key != "" && (!errors.As(err, &fe) || fe.Key != tt.key) {
				t.Fatalf("Validate = %v, want a FieldError for %q", err, tt.key)
			}
		})
	}
}
