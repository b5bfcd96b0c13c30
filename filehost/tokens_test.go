package filehost

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/auth"
	"folio/sqlstore"
)

// tokenJSON is an API token as the API shows it.
type tokenJSON struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Token      string  `json:"token"`
	CreatedAt  string  `json:"created_at"`
	ExpiresAt  *string `json:"expires_at"`
	LastUsedAt *string `json:"last_used_at"`
}

func TestAPITokenIsShownOnceAndAuthenticates(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("hank", 0)
	var tok tokenJSON
	r := c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "PicGo"})
	acctOK(t, r, http.StatusCreated, &tok)
	if !strings.HasPrefix(tok.Token, auth.APITokenPrefix) || tok.Name != "PicGo" || !sqlstore.ValidID(tok.ID) ||
		tok.ExpiresAt != nil || tok.LastUsedAt != nil || tok.CreatedAt == "" {
		t.Fatalf("token = %+v", tok)
	}
	for _, k := range []string{"id", "name", "token", "created_at", "expires_at", "last_used_at"} {
		if !acctKeys(t, r.A().Data)[k] {
			t.Errorf("token lacks %q", k)
		}
	}

	// As Bearer and bare, the way some clients paste it.
	var me userJSON
	acctOK(t, e.bearer(tok.Token).Do(http.MethodGet, "/api/v1/auth/me", nil), 200, &me)
	if me.ID != id {
		t.Fatalf("me = %+v", me)
	}
	acctOK(t, e.c.Clone().Do(http.MethodGet, "/api/v1/auth/me", nil, "Authorization", tok.Token), 200, nil)

	// The list never shows the value, and shows the last use.
	r = c.Do(http.MethodGet, "/api/v1/tokens", nil)
	var page struct {
		Items []tokenJSON `json:"items"`
		Total int         `json:"total"`
		Page  int         `json:"page"`
		Size  int         `json:"size"`
	}
	acctOK(t, r, 200, &page)
	if page.Total != 1 || len(page.Items) != 1 || page.Items[0].ID != tok.ID || page.Items[0].LastUsedAt == nil ||
		page.Page != 1 || page.Size != 20 {
		t.Fatalf("list = %+v", page)
	}
	if strings.Contains(string(r.Body), tok.Token) || strings.Contains(string(r.Body), `"token"`) {
		t.Fatalf("list shows the token: %s", r.Body)
	}
}

func TestAPITokenValidation(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("ivan", 0)
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	for _, tc := range []struct {
		name string
		body any
	}{
		{"no name", map[string]string{}},
		{"blank name", map[string]string{"name": "   "}},
		{"long name", map[string]string{"name": strings.Repeat("n", 101)}},
		{"expiry not RFC 3339", map[string]string{"name": "x", "expires_at": "tomorrow"}},
		{"expiry in the past", map[string]string{"name": "x", "expires_at": "2001-01-01T00:00:00Z"}},
		{"malformed JSON", `{"name":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acctErr(t, c.Do(http.MethodPost, "/api/v1/tokens", tc.body), 400, 40000)
		})
	}
	var tok tokenJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "ci", "expires_at": future}), 201, &tok)
	if tok.ExpiresAt == nil || *tok.ExpiresAt != future {
		t.Fatalf("expires_at = %v, want %s", tok.ExpiresAt, future)
	}
	acctOK(t, e.bearer(tok.Token).Do(http.MethodGet, "/api/v1/auth/me", nil), 200, nil)
	// Once its time has passed it stops working.
	if _, err := e.db.Exec(context.Background(), "UPDATE api_tokens SET expires_at = $1 WHERE id = $2",
		sqlstore.FromTime(time.Now().Add(-time.Second)), tok.ID); err != nil {
		t.Fatal(err)
	}
	acctErr(t, e.bearer(tok.Token).Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)

	acctErr(t, e.c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "anon"}), 401, 40100)
	acctErr(t, e.c.Do(http.MethodGet, "/api/v1/tokens", nil), 401, 40100)
}

func TestRevokedTokenStopsAtOnce(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("judy", 0)
	_, other := e.newUser("kim", 0)
	var tok tokenJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "one"}), 201, &tok)
	tc := e.bearer(tok.Token)
	acctOK(t, tc.Do(http.MethodGet, "/api/v1/auth/me", nil), 200, nil)

	// Another user cannot see or revoke it.
	acctErr(t, other.Do(http.MethodDelete, "/api/v1/tokens/"+tok.ID, nil), 404, 40400)
	acctErr(t, c.Do(http.MethodDelete, "/api/v1/tokens/not-an-id", nil), 404, 40400)
	acctErr(t, c.Do(http.MethodDelete, "/api/v1/tokens/"+sqlstore.NewID(), nil), 404, 40400)
	acctOK(t, tc.Do(http.MethodGet, "/api/v1/auth/me", nil), 200, nil)

	// A token may revoke itself.
	acctOK(t, tc.Do(http.MethodDelete, "/api/v1/tokens/"+tok.ID, nil), 200, nil)
	acctErr(t, tc.Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)
	acctErr(t, c.Do(http.MethodDelete, "/api/v1/tokens/"+tok.ID, nil), 404, 40400)
	var page struct{ Total int }
	acctOK(t, c.Do(http.MethodGet, "/api/v1/tokens", nil), 200, &page)
	if page.Total != 0 {
		t.Fatalf("revoked token still listed")
	}
}

func TestDisabledUsersTokensStopAtOnce(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("liam", 0)
	var tok tokenJSON
	acctOK(t, c.Do(http.MethodPost, "/api/v1/tokens", map[string]string{"name": "uploader"}), 201, &tok)
	tc := e.bearer(tok.Token)
	mustUpload(t, tc, "a.png", pngBytes(t, 4, 4))

	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+id, map[string]string{"status": "disabled"}), 200, nil)
	acctErr(t, tc.Do(http.MethodGet, "/api/v1/auth/me", nil), 401, 40100)
	acctErr(t, c.Do(http.MethodGet, "/api/v1/tokens", nil), 401, 40100) // access tokens too
	r := tc.Upload("/api/v1/upload", "file", "b.png", pngBytes(t, 5, 5))
	expectUploadError(t, r, 401, 40100)

	acctOK(t, e.admin.Do(http.MethodPatch, "/api/v1/admin/users/"+id, map[string]string{"status": "active"}), 200, nil)
	acctOK(t, tc.Do(http.MethodGet, "/api/v1/auth/me", nil), 200, nil)
}

func TestTokenRequestNeedsANameAndAFutureExpiry(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	str := func(s string) *string { return &s }
	exp := time.Date(2025, 1, 3, 0, 0, 0, 123456000, time.UTC)
	for _, tt := range []struct {
		name     string
		req      tokenRequest
		wantName string
		wantExp  *time.Time
		wantErr  string
	}{
		{"name only", tokenRequest{Name: " picgo "}, "picgo", nil, ""},
		{"blank expiry is none", tokenRequest{Name: "a", ExpiresAt: str("  ")}, "a", nil, ""},
		{"expiry in UTC, to the microsecond", tokenRequest{Name: "a", ExpiresAt: str("2025-01-03T02:00:00.123456789+02:00")}, "a", &exp, ""},
		{"empty name", tokenRequest{Name: " "}, "", nil, "name must be 1-100 characters"},
		{"name too long", tokenRequest{Name: strings.Repeat("n", 101)}, "", nil, "name must be 1-100 characters"},
		{"expiry not RFC 3339", tokenRequest{Name: "a", ExpiresAt: str("tomorrow")}, "", nil, "expires_at must be an RFC 3339 time"},
		{"expiry now", tokenRequest{Name: "a", ExpiresAt: str("2025-01-02T03:04:05Z")}, "", nil, "expires_at must be in the future"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name, got, err := tt.req.parse(now)
			if tt.wantErr != "" {
				var ii *invalidInput
				if !errors.As(err, &ii) || ii.msg != tt.wantErr {
					t.Fatalf("parse() = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || name != tt.wantName {
				t.Fatalf("parse() = %q, %v, want %q", name, err, tt.wantName)
			}
			if (got == nil) != (tt.wantExp == nil) || got != nil && !got.Equal(*tt.wantExp) || got != nil && got.Location() != time.UTC {
				t.Fatalf("expiry = %v, want %v", got, tt.wantExp)
			}
		})
	}
}
