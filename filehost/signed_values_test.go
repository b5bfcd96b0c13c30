package filehost

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

// The signed values the file host hands out are read back by the one
// strict parser in auth (docs/design.md#identity): anything but the
// signer's exact text is refused, even where Go's lenient base64 decoder
// would read the same MAC. These tests go through the real server.

func TestSharePasswordCookieMustBeTheSignersText(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "secret.png", pngBytes(t, 8, 8))
	sh := mustShare(t, alice, u.ID, map[string]any{"password": "open sesame"})
	b := browser(e.c)
	tok := b.Do("GET", sh.path(), nil).Expect(200).FormToken()
	res := b.PostForm(sh.path(), "form_token", tok, "password", "open sesame").Expect(303)
	var cookie string
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == sharePasswordCookie {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("no %s cookie after the right password: %v", sharePasswordCookie, res.Header)
	}
	open := func(t *testing.T, value string) *httpxtest.Response {
		return within(t, browser(e.c)).Do("GET", sh.path(), nil, "Cookie", sharePasswordCookie+"="+value).Expect(200)
	}
	if page := open(t, cookie); !contains(page, `<img class="media"`) || contains(page, `name="password"`) {
		t.Fatalf("the cookie itself does not open the page: %.300s", page.Body)
	}
	for _, v := range authtest.MACVariants(t, cookie) {
		if !v.Header {
			continue // no client sends a CR or LF in a header
		}
		t.Run(v.Name, func(t *testing.T) {
			if page := open(t, v.Value); !contains(page, `name="password"`) || contains(page, `<img class="media"`) {
				t.Fatalf("the page did not ask for the password again: %.300s", page.Body)
			}
		})
	}
}

func TestShareTicketMustBeTheSignersText(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 8, 8))
	sh := mustShare(t, alice, u.ID, nil)
	raw := rawPath(t, browser(e.c).Do("GET", sh.path(), nil).Expect(200))
	i := strings.Index(raw, "?t=")
	ticket, err := url.QueryUnescape(raw[i+3:])
	if err != nil {
		t.Fatal(err)
	}
	e.c.Do("GET", raw[:i]+"?t="+url.QueryEscape(ticket), nil).Expect(200)
	// A query string carries any byte, CR and LF too.
	for _, v := range authtest.MACVariants(t, ticket) {
		t.Run(v.Name, func(t *testing.T) {
			within(t, e.c).Do("GET", raw[:i]+"?t="+url.QueryEscape(v.Value), nil).Expect(404)
		})
	}
}

func TestConsoleFormTokenMustBeTheSignersText(t *testing.T) {
	e := newTestEnv(t)
	b := e.consoleAdmin()
	tok := pageToken(b, "/console/albums")
	for _, v := range authtest.MACVariants(t, tok) {
		t.Run(v.Name, func(t *testing.T) {
			within(t, b).PostForm("/console/albums", "form_token", v.Value, "name", "refused").Expect(403)
		})
	}
	b.PostForm("/console/albums", "form_token", tok, "name", "made").Expect(303)
}

func TestAnonymousFormTokenMustBeTheSignersText(t *testing.T) {
	e := newTestEnv(t)
	b := e.c.Clone()
	tok := pageToken(b, "/console/login")
	// Each attempt from its own address: sign-in attempts are limited per
	// address.
	for i, v := range authtest.MACVariants(t, tok) {
		t.Run(v.Name, func(t *testing.T) {
			c := within(t, b)
			c.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
			c.PostForm("/console/login", "form_token", v.Value, "username", authtest.AdminUsername,
				"password", authtest.AdminPassword).Expect(403)
		})
	}
	b.Header.Set("X-Forwarded-For", "198.51.100.200")
	b.PostForm("/console/login", "form_token", tok, "username", authtest.AdminUsername, "password", authtest.AdminPassword).Expect(303)
}

func TestLoginTicketMustBeTheSignersText(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("tina")
	secret, _ := e.enableTOTP(b, id)
	other := e.c.Clone()
	step := other.PostForm("/console/login", "form_token", pageToken(other, "/console/login"),
		"username", "tina", "password", testPassword).Expect(200)
	m := regexp.MustCompile(`name="ticket" value="([^"]+)"`).FindSubmatch(step.Body)
	if m == nil {
		t.Fatalf("no code step: %.500s", step.Body)
	}
	ticket, tok := string(m[1]), step.FormToken()
	for i, v := range authtest.MACVariants(t, ticket) {
		t.Run(v.Name, func(t *testing.T) {
			c := within(t, other)
			c.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
			res := c.PostForm("/console/login/code", "form_token", tok, "ticket", v.Value,
				"code", auth.TOTPCode(secret, time.Now())).Expect(401)
			if !contains(res, "That took too long. Sign in again.") {
				t.Fatalf("not refused as a ticket: %.300s", res.Body)
			}
		})
	}
	other.Header.Set("X-Forwarded-For", "198.51.100.200")
	other.PostForm("/console/login/code", "form_token", tok, "ticket", ticket, "code", auth.TOTPCode(secret, time.Now())).Expect(303)
}
