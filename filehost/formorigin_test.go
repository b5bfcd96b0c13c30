package filehost

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestAnonymousFormsMustNameTheSite posts the forms shown before sign-in
// (the console's sign-in and a share link's password) with a good form
// token, named by Origin, by Referer alone, by nothing or by another host.
func TestAnonymousFormsMustNameTheSite(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "secret.png", pngBytes(t, 8, 8))
	sh := mustShare(t, alice, u.ID, map[string]any{"password": "open sesame"})
	for i, tt := range []struct {
		name    string
		headers []string // {site} is the server's address
		ok      bool
	}{
		{"Origin of the site", []string{"Origin", "{site}"}, true},
		{"Referer of the site without Origin", []string{"Referer", "{site}/console/login"}, true},
		{"neither Origin nor Referer", nil, false},
		{"Origin of another host", []string{"Origin", "https://evil.example"}, false},
		{"Referer of another host", []string{"Referer", "https://evil.example/"}, false},
		{"Origin null", []string{"Origin", "null", "Referer", "{site}/"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := browser(within(t, e.c))
			b.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i+1))
			for _, form := range []struct {
				page   string
				fields url.Values
				ok     int
			}{
				{"/console/login", url.Values{"username": {"alice"}, "password": {testPassword}}, http.StatusSeeOther},
				{sh.path(), url.Values{"password": {"open sesame"}}, http.StatusSeeOther},
			} {
				form.fields.Set("form_token", b.Do("GET", form.page, nil).Expect(200).FormToken())
				req, _ := http.NewRequest("POST", e.c.Base+form.page, strings.NewReader(form.fields.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				for j := 0; j+1 < len(tt.headers); j += 2 {
					req.Header.Set(tt.headers[j], strings.ReplaceAll(tt.headers[j+1], "{site}", e.c.Base))
				}
				res := b.Send(req)
				want := form.ok
				if !tt.ok {
					want = http.StatusForbidden
				}
				if res.Status != want {
					t.Errorf("POST %s: %d, want %d", form.page, res.Status, want)
				}
			}
		})
	}
}
