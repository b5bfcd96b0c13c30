// Package httpxtest drives a real handler over HTTP in tests: a server on
// httptest, a client with a cookie jar, and decoders for Folio's envelopes.
package httpxtest

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Client sends requests to one test server. Header is added to every
// request; the cookie jar keeps sessions between requests.
type Client struct {
	T      testing.TB
	Base   string
	HTTP   *http.Client
	Header http.Header
}

// NewServer serves h on a loopback httptest server for the test's lifetime
// and returns a client for it.
func NewServer(t testing.TB, h http.Handler) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return NewClient(t, srv.URL)
}

// NewClient returns a client for base with an empty cookie jar.
func NewClient(t testing.TB, base string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{T: t, Base: base, Header: http.Header{},
		HTTP: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Clone returns a client for the same server with its own, empty jar and a
// copy of the headers: another visitor.
func (c *Client) Clone() *Client {
	n := NewClient(c.T, c.Base)
	n.Header = c.Header.Clone()
	return n
}

// Response is a fully read response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	T      testing.TB
}

// Do sends a request. body may be nil, a string or []byte (sent as is), or
// anything else (sent as JSON). Extra headers come in pairs.
func (c *Client) Do(method, path string, body any, headerPairs ...string) *Response {
	c.T.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/json"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.T.Fatalf("marshal body: %v", err)
		}
		rd, ctype = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		c.T.Fatalf("new request: %v", err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	for i := 0; i+1 < len(headerPairs); i += 2 {
		req.Header.Set(headerPairs[i], headerPairs[i+1])
	}
	return c.Send(req)
}

// Send sends a prepared request with the client's headers added.
func (c *Client) Send(req *http.Request) *Response {
	c.T.Helper()
	for k, v := range c.Header {
		if req.Header.Get(k) == "" {
			req.Header[k] = v
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatalf("read body: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b, T: c.T}
}

// Upload sends a multipart/form-data POST with one file part named field and
// extra form fields in pairs, from the server's own origin as a browser's
// upload form does (unless the client's headers name another).
func (c *Client) Upload(path, field, filename string, content []byte, fields ...string) *Response {
	c.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = mw.WriteField(fields[i], fields[i+1])
	}
	if field != "" {
		fw, err := mw.CreateFormFile(field, filename)
		if err != nil {
			c.T.Fatal(err)
		}
		_, _ = fw.Write(content)
	}
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, c.Base+path, &buf)
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if c.Header.Get("Origin") == "" {
		req.Header.Set("Origin", c.Base)
	}
	return c.Send(req)
}

// EnvelopeA is {code, message, data}.
type EnvelopeA struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// EnvelopeB is {code, data, msg}.
type EnvelopeB struct {
	Code int             `json:"code"`
	Data json.RawMessage `json:"data"`
	Msg  string          `json:"msg"`
}

// UploadEnvelope is {status, message, data, code}.
type UploadEnvelope struct {
	Status  bool            `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Code    int             `json:"code"`
}

// A decodes envelope A, failing the test on anything else.
func (r *Response) A() EnvelopeA {
	r.T.Helper()
	var e EnvelopeA
	r.strict(&e, "code", "message", "data")
	return e
}

// B decodes envelope B, failing the test on anything else.
func (r *Response) B() EnvelopeB {
	r.T.Helper()
	var e EnvelopeB
	r.strict(&e, "code", "data", "msg")
	return e
}

// U decodes the upload shape.
func (r *Response) U() UploadEnvelope {
	r.T.Helper()
	var e UploadEnvelope
	r.strict(&e, "status", "message", "data")
	return e
}

// strict decodes and checks that exactly the envelope's keys are present
// (the upload shape may add "code").
func (r *Response) strict(dst any, keys ...string) {
	r.T.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		r.T.Fatalf("status %d: content type %q, want JSON; body: %s", r.Status, ct, r.Body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.T.Fatalf("status %d: body is not a JSON object: %v: %s", r.Status, err, r.Body)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			r.T.Fatalf("status %d: envelope lacks %q: %s", r.Status, k, r.Body)
		}
	}
	for k := range m {
		found := k == "code" && keys[0] == "status"
		for _, want := range keys {
			found = found || k == want
		}
		if !found {
			r.T.Fatalf("status %d: envelope has extra key %q: %s", r.Status, k, r.Body)
		}
	}
	if err := json.Unmarshal(r.Body, dst); err != nil {
		r.T.Fatalf("decode envelope: %v: %s", err, r.Body)
	}
}

// Into decodes raw JSON (an envelope's data) into dst.
func Into(t testing.TB, raw json.RawMessage, dst any) {
	t.Helper()
	if err := json.Unmarshal(raw, dst); err != nil {
		t.Fatalf("decode data: %v: %s", err, raw)
	}
}

// Expect fails the test unless the status is want.
func (r *Response) Expect(want int) *Response {
	r.T.Helper()
	if r.Status != want {
		r.T.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Body)
	}
	return r
}

// PostForm sends an application/x-www-form-urlencoded POST from the
// server's own origin, as a browser submitting one of its forms does;
// fields come in pairs.
func (c *Client) PostForm(path string, fields ...string) *Response {
	c.T.Helper()
	form := url.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Add(fields[i], fields[i+1])
	}
	req, err := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.T.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.Base)
	return c.Send(req)
}

// formTokenField finds the hidden form_token input of a console page.
var formTokenField = regexp.MustCompile(`name="form_token" value="([^"]+)"`)

// FormToken returns the form token a console page carries, failing the test
// when it has none.
func (r *Response) FormToken() string {
	r.T.Helper()
	m := formTokenField.FindSubmatch(r.Body)
	if m == nil {
		r.T.Fatalf("no form_token in the page (status %d): %.300s", r.Status, r.Body)
	}
	return html.UnescapeString(string(m[1]))
}

// Location is the response's redirect target.
func (r *Response) Location() string { return r.Header.Get("Location") }
