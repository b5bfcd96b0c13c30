package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Sentinels for errors.Is. An *Error wraps at most one of these (or a
// context error), never the underlying transport error, whose text may
// carry the request URL.
var (
	// ErrBadResponse: the provider answered 2xx with something that is not
	// a usable reply (bad JSON, wrong shape, no choices, empty content,
	// nothing that parses as a summary or tags).
	ErrBadResponse = errors.New("bad response")
	// ErrTooLarge: the response body passed Config.MaxResponseBytes.
	ErrTooLarge = errors.New("response too large")
	// ErrStatus: the provider answered with a non-2xx status.
	ErrStatus = errors.New("error status")
	// ErrTransport: the request could not be sent or its answer not read.
	ErrTransport = errors.New("transport error")
)

// Error is what every call of this package returns on failure. Its text
// names the provider and the HTTP status; the API key is removed from it.
type Error struct {
	Provider string
	Status   int  // HTTP status, 0 when no response was received
	Attempts int  // requests sent
	Retry    bool // whether the failure was of a kind worth retrying
	msg      string
	kind     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("ai: ")
	b.WriteString(e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.msg != "" {
		b.WriteString(": ")
		b.WriteString(e.msg)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.kind }

// message is one chat message in both providers' formats.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIRequest struct {
	Model       string    `json:"model"`
	Messages    []message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

type ollamaOptions struct {
	Temperature *float64 `json:"temperature,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
}

type ollamaRequest struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Stream   bool           `json:"stream"`
	Options  *ollamaOptions `json:"options,omitempty"`
}

type ollamaResponse struct {
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
}

// Complete sends one system and one user message and returns the model's
// reply, trimmed. It retries 429 and 5xx answers and transport failures
// with exponential backoff, but never waits past ctx's deadline.
func (c *Client) Complete(ctx context.Context, system, user string) (string, error) {
	body, err := c.requestBody(system, user)
	if err != nil {
		return "", c.fail(0, 0, false, ErrBadResponse, "encoding request: "+err.Error())
	}
	for attempt := 1; ; attempt++ {
		reply, aerr := c.attempt(ctx, body)
		if aerr == nil {
			return reply, nil
		}
		aerr.Attempts = attempt
		if !aerr.Retry || attempt >= c.cfg.MaxAttempts || ctx.Err() != nil {
			return "", aerr.Error
		}
		wait := c.backoff(attempt)
		if aerr.retryAfter > 0 {
			if aerr.retryAfter > c.cfg.MaxRetryAfter {
				return "", aerr.Error
			}
			wait = aerr.retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			// Sleeping would only end in the deadline: report the real failure now.
			return "", aerr.Error
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", aerr.Error
		case <-t.C:
		}
	}
}

// attemptError is an *Error plus what the retry loop needs.
type attemptError struct {
	*Error
	retryAfter time.Duration
}

func (c *Client) attempt(ctx context.Context, body []byte) (string, *attemptError) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return "", &attemptError{Error: c.fail(0, 0, false, ErrTransport, "building request: "+c.transportText(err))}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Folio")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", &attemptError{Error: c.transportFailure(ctx, actx, err)}
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Only a little of an error body is worth reading.
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		retry := resp.StatusCode == http.StatusTooManyRequests ||
			(resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented)
		e := &attemptError{Error: c.fail(resp.StatusCode, 0, retry, ErrStatus, c.errorText(raw))}
		if retry {
			e.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return "", e
	}

	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes+1))
	if err != nil {
		return "", &attemptError{Error: c.transportFailure(ctx, actx, err)}
	}
	if int64(len(raw)) > c.cfg.MaxResponseBytes {
		return "", &attemptError{Error: c.fail(resp.StatusCode, 0, false, ErrTooLarge,
			fmt.Sprintf("response larger than %d bytes", c.cfg.MaxResponseBytes))}
	}
	reply, err := c.parseReply(raw)
	if err != nil {
		return "", &attemptError{Error: c.fail(resp.StatusCode, 0, false, ErrBadResponse, err.Error())}
	}
	return reply, nil
}

func (c *Client) requestBody(system, user string) ([]byte, error) {
	msgs := []message{{Role: "system", Content: system}, {Role: "user", Content: user}}
	if c.cfg.Provider == ProviderOllama {
		r := ollamaRequest{Model: c.cfg.Model, Messages: msgs, Stream: false}
		if c.cfg.Temperature != nil || c.cfg.MaxTokens > 0 {
			r.Options = &ollamaOptions{Temperature: c.cfg.Temperature, NumPredict: c.cfg.MaxTokens}
		}
		return json.Marshal(r)
	}
	return json.Marshal(openAIRequest{Model: c.cfg.Model, Messages: msgs,
		Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens})
}

// parseReply extracts the reply text. Error texts here are ours, not the
// provider's, so they cannot carry the key.
func (c *Client) parseReply(raw []byte) (string, error) {
	var content string
	if c.cfg.Provider == ProviderOllama {
		var r ollamaResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			return "", errors.New("response is not the expected JSON")
		}
		if r.Message == nil {
			return "", errors.New("response has no message")
		}
		content = r.Message.Content
	} else {
		var r openAIResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			return "", errors.New("response is not the expected JSON")
		}
		if len(r.Choices) == 0 {
			return "", errors.New("response has no choices")
		}
		if r.Choices[0].Message.Content == nil {
			return "", errors.New("response has no message content")
		}
		content = *r.Choices[0].Message.Content
	}
	content = strings.TrimSpace(content)
	if content == "" {
		return "", errors.New("response content is empty")
	}
	return content, nil
}

func (c *Client) fail(status, attempts int, retry bool, kind error, msg string) *Error {
	return &Error{Provider: c.cfg.Provider, Status: status, Attempts: attempts, Retry: retry,
		kind: kind, msg: c.redact(msg)}
}

// transportFailure describes a failed round trip. A timeout of this attempt
// alone is worth retrying; the caller's own cancellation or deadline is not,
// and is kept for errors.Is.
func (c *Client) transportFailure(parent, attempt context.Context, err error) *Error {
	if perr := parent.Err(); perr != nil {
		return c.fail(0, 0, false, perr, "request abandoned: "+perr.Error())
	}
	if attempt.Err() != nil {
		return c.fail(0, 0, true, ErrTransport, fmt.Sprintf("no answer within %s", c.cfg.Timeout))
	}
	return c.fail(0, 0, true, ErrTransport, c.transportText(err))
}

// transportText drops the URL that *url.Error prints: the base URL is
// configuration and may hold a credential of its own.
func (c *Client) transportText(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return err.Error()
}

// errorText makes a short, printable description of an error body,
// preferring the message field both providers use.
func (c *Client) errorText(raw []byte) string {
	var shaped struct {
		Error json.RawMessage `json:"error"`
	}
	text := ""
	if json.Unmarshal(raw, &shaped) == nil && len(shaped.Error) > 0 {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(shaped.Error, &s) == nil:
			text = s
		case json.Unmarshal(shaped.Error, &obj) == nil:
			text = obj.Message
		}
	}
	if text == "" {
		text = string(raw)
	}
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}), " ")
	// Redact before cutting, so that a cut cannot leave a key prefix that
	// no longer matches.
	text = c.redact(text)
	return truncateRunes(text, 200, "…")
}

// redact removes the API key from s. Providers echo keys back in error
// bodies, and keys can end up in configured URLs.
func (c *Client) redact(s string) string {
	k := c.cfg.APIKey
	if k == "" {
		return s
	}
	s = strings.ReplaceAll(s, k, "[redacted]")
	if esc := url.QueryEscape(k); esc != k {
		s = strings.ReplaceAll(s, esc, "[redacted]")
	}
	if esc := url.PathEscape(k); esc != k {
		s = strings.ReplaceAll(s, esc, "[redacted]")
	}
	return s
}

// backoff is the wait after the given failed attempt: exponential, capped,
// with jitter in [d/2, d] so that many clients do not retry in step.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BackoffBase
	for i := 1; i < attempt && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.cfg.BackoffMax)
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n <= 0 {
			return 0
		}
		if n > 86400 {
			n = 86400
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// truncateRunes cuts s to at most max runes, the tail included.
func truncateRunes(s string, max int, tail string) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	keep := max - utf8.RuneCountInString(tail)
	if keep < 0 {
		return string(r[:max])
	}
	return string(r[:keep]) + tail
}
