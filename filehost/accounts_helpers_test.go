package filehost

import (
	"encoding/json"
	"net/http"
	"testing"

	"folio/httpx/httpxtest"
)

// acctOK checks a successful envelope-A answer with the given status and
// decodes its data into dst when dst is not nil.
func acctOK(t testing.TB, r *httpxtest.Response, status int, dst any) {
	t.Helper()
	r.Expect(status)
	env := r.A()
	if env.Code != 0 || env.Message != "success" {
		t.Fatalf("want code 0 and message success: %s", r.Body)
	}
	if dst != nil {
		httpxtest.Into(t, env.Data, dst)
	}
}

// acctErr checks an envelope-A failure: status, code, data null and a
// message.
func acctErr(t testing.TB, r *httpxtest.Response, status, code int) {
	t.Helper()
	r.Expect(status)
	env := r.A()
	if env.Code != code || string(env.Data) != "null" || env.Message == "" {
		t.Fatalf("want code %d, data null and a message: %s", code, r.Body)
	}
}

// acctKeys returns the keys of a JSON object.
func acctKeys(t testing.TB, raw json.RawMessage) map[string]bool {
	t.Helper()
	var m map[string]json.RawMessage
	httpxtest.Into(t, raw, &m)
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// userJSON is the user object of the API.
type userJSON struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Email      string `json:"email"`
	Role       string `json:"role"`
	Status     string `json:"status"`
	QuotaBytes int64  `json:"quota_bytes"`
	UsedBytes  int64  `json:"used_bytes"`
	FileCount  int64  `json:"file_count"`
	CreatedAt  string `json:"created_at"`
}

// pairJSON is the data of a login or refresh.
type pairJSON struct {
	AccessToken  string   `json:"access_token"`
	RefreshToken string   `json:"refresh_token"`
	TokenType    string   `json:"token_type"`
	ExpiresIn    int      `json:"expires_in"`
	User         userJSON `json:"user"`
}

// login logs in through the API with a fresh client and returns the pair.
func (e *testEnv) login(username, password string) pairJSON {
	e.t.Helper()
	var p pairJSON
	acctOK(e.t, e.c.Clone().Do(http.MethodPost, "/api/v1/auth/login",
		map[string]string{"username": username, "password": password}), http.StatusOK, &p)
	return p
}

// bearer returns an anonymous client that sends tok as its Bearer token.
func (e *testEnv) bearer(tok string) *httpxtest.Client {
	c := e.c.Clone()
	c.Header.Set("Authorization", "Bearer "+tok)
	return c
}
