package ai

import (
	"strings"

	"folio/sqlstore"
)

// Settings are the ai settings group, changed at runtime through the
// settings API.
type Settings struct {
	Enabled     bool   `json:"enabled"`
	Provider    string `json:"provider"`
	APIKey      string `json:"api_key"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url"`
	AutoSummary bool   `json:"auto_summary"`
	AutoTag     bool   `json:"auto_tag"`
}

// DefaultSettings are the built-in values, before any configuration.
func DefaultSettings() Settings { return Settings{Provider: ProviderOpenAI} }

// Validate checks the values; the error is a *sqlstore.FieldError naming the
// first offending key.
func (s Settings) Validate() error {
	switch {
	case s.Provider != ProviderOpenAI && s.Provider != ProviderOllama:
		return &sqlstore.FieldError{Key: "ai.provider", Msg: "must be openai or ollama"}
	case s.BaseURL != "" && !strings.HasPrefix(s.BaseURL, "http://") && !strings.HasPrefix(s.BaseURL, "https://"):
		return &sqlstore.FieldError{Key: "ai.base_url", Msg: "must be an http or https URL"}
	}
	return nil
}
