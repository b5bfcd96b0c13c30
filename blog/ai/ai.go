// Package ai talks to a chat-completion provider (OpenAI or any
// OpenAI-compatible service, or a local Ollama) over plain net/http, and
// builds on it the two jobs the blog needs: a post summary and tag
// suggestions. A bounded background Queue lets the blog run those jobs
// after a post is saved without ever delaying the request that saved it.
//
// A Client is cheap to build and safe for concurrent use; since the ai
// settings can change at runtime, build one per job from the current
// settings (NewFromSettings) rather than keeping one for the process.
package ai

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Provider names, as in the ai.provider setting.
const (
	ProviderOpenAI = "openai"
	ProviderOllama = "ollama"
)

// Defaults used when the configuration leaves a field empty.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultOllamaBaseURL = "http://127.0.0.1:11434"
	// Default models are small and cheap; the ai.model setting overrides them.
	DefaultOpenAIModel = "gpt-4o-mini"
	DefaultOllamaModel = "llama3.2"

	DefaultTimeout          = 30 * time.Second
	DefaultMaxAttempts      = 3
	DefaultMaxResponseBytes = 1 << 20
	DefaultBackoffBase      = 500 * time.Millisecond
	DefaultBackoffMax       = 8 * time.Second
	// A provider asking us to come back later than this is treated as down:
	// a background summary is not worth holding a worker for minutes.
	DefaultMaxRetryAfter = 60 * time.Second
)

// Config describes one provider. Zero fields take the defaults above.
type Config struct {
	Provider string // ProviderOpenAI or ProviderOllama
	APIKey   string // sent as "Authorization: Bearer"; optional for Ollama
	Model    string
	BaseURL  string // without the endpoint path, e.g. https://api.openai.com/v1

	// Temperature and MaxTokens are sent only when set: some models reject
	// any temperature but their own.
	Temperature *float64
	MaxTokens   int

	Timeout          time.Duration // per attempt; the caller's context bounds the whole call
	MaxAttempts      int           // including the first
	MaxResponseBytes int64
	BackoffBase      time.Duration // wait before the 2nd attempt; doubles after each
	BackoffMax       time.Duration
	MaxRetryAfter    time.Duration

	// HTTPClient sends the requests; nil means a client on
	// http.DefaultTransport. Its own Timeout, if any, also applies.
	HTTPClient *http.Client
}

// ConfigFromSettings maps the ai settings group onto a Config. Enabled,
// AutoSummary and AutoTag are the caller's business and are not looked at.
func ConfigFromSettings(s Settings) Config {
	return Config{
		Provider: strings.ToLower(strings.TrimSpace(s.Provider)),
		APIKey:   strings.TrimSpace(s.APIKey),
		Model:    strings.TrimSpace(s.Model),
		BaseURL:  strings.TrimSpace(s.BaseURL),
	}
}

// Client sends chat requests to one provider.
type Client struct {
	cfg      Config
	endpoint *url.URL
	http     *http.Client
}

// New checks cfg, fills its defaults and returns a client.
func New(cfg Config) (*Client, error) {
	switch cfg.Provider {
	case ProviderOpenAI:
		cfg.BaseURL = withDefault(cfg.BaseURL, DefaultOpenAIBaseURL)
		cfg.Model = withDefault(cfg.Model, DefaultOpenAIModel)
	case ProviderOllama:
		cfg.BaseURL = withDefault(cfg.BaseURL, DefaultOllamaBaseURL)
		cfg.Model = withDefault(cfg.Model, DefaultOllamaModel)
	case "":
		return nil, errors.New("ai: no provider configured (ai.provider)")
	default:
		return nil, fmt.Errorf("ai: unknown provider %q (want %s or %s)", cfg.Provider, ProviderOpenAI, ProviderOllama)
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The base URL may carry a key (some proxies take it in the path or
		// query), so it is not repeated here.
		return nil, fmt.Errorf("ai: %s: ai.base_url must be an absolute http or https URL", cfg.Provider)
	}
	path := "/chat/completions"
	if cfg.Provider == ProviderOllama {
		path = "/api/chat"
	}
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	u.Fragment = ""

	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, endpoint: u, http: hc}, nil
}

// NewFromSettings is New(ConfigFromSettings(s)) with the given HTTP client
// (nil for the default).
func NewFromSettings(s Settings, hc *http.Client) (*Client, error) {
	cfg := ConfigFromSettings(s)
	cfg.HTTPClient = hc
	return New(cfg)
}

// Provider returns the provider's name.
func (c *Client) Provider() string { return c.cfg.Provider }

// Model returns the model requests are sent for.
func (c *Client) Model() string { return c.cfg.Model }

func withDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
