package filehost

import (
	"strings"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
)

// consoleAs signs a new browser in through the console's sign-in form and
// returns it, with its session cookie in the jar.
func (e *testEnv) consoleAs(login, password string) *httpxtest.Client {
	e.t.Helper()
	b := e.c.Clone()
	tok := b.Do("GET", "/console/login", nil).Expect(200).FormToken()
	res := b.PostForm("/console/login", "form_token", tok, "username", login, "password", password)
	if res.Status != 303 {
		e.t.Fatalf("console sign-in as %s: %d %.300s", login, res.Status, res.Body)
	}
	return b
}

// consoleAdmin is a browser signed in to the console as the administrator.
func (e *testEnv) consoleAdmin() *httpxtest.Client {
	return e.consoleAs(authtest.AdminUsername, authtest.AdminPassword)
}

// consoleUser creates a user and returns its id and a browser signed in as
// it.
func (e *testEnv) consoleUser(username string) (string, *httpxtest.Client) {
	e.t.Helper()
	id := e.createUser(username, 0)
	return id, e.consoleAs(username, testPassword)
}

// pageToken loads a console page and returns the form token it carries.
func pageToken(b *httpxtest.Client, path string) string {
	return b.Do("GET", path, nil).Expect(200).FormToken()
}

// contains reports whether a page's body holds every one of parts.
func contains(res *httpxtest.Response, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(string(res.Body), p) {
			return false
		}
	}
	return true
}
