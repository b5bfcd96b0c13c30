package filehost

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
)

type tokenRequest struct {
	Name      string  `json:"name"`
	ExpiresAt *string `json:"expires_at"`
}

// parse validates the request: a name of 1-100 characters and, when given,
// an RFC 3339 expiry in the future.
func (t tokenRequest) parse(now time.Time) (string, *time.Time, error) {
	name := strings.TrimSpace(t.Name)
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return "", nil, httpx.BadRequest("name must be 1-100 characters")
	}
	if t.ExpiresAt == nil || strings.TrimSpace(*t.ExpiresAt) == "" {
		return name, nil, nil
	}
	exp, err := time.Parse(time.RFC3339, strings.TrimSpace(*t.ExpiresAt))
	if err != nil {
		return "", nil, httpx.BadRequest("expires_at must be an RFC 3339 time")
	}
	if !exp.After(now) {
		return "", nil, httpx.BadRequest("expires_at must be in the future")
	}
	exp = exp.UTC().Truncate(time.Microsecond)
	return name, &exp, nil
}

// handleCreateToken is POST /api/v1/tokens: the only answer that carries the
// token's value.
func (s *Service) handleCreateToken(w http.ResponseWriter, r *http.Request) error {
	var req tokenRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	name, exp, err := req.parse(s.now())
	if err != nil {
		return err
	}
	tok, err := s.auth.CreateAPIToken(r.Context(), auth.FromContext(r.Context()).UserID, name, exp)
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusCreated, tok)
	return nil
}

// handleListTokens is GET /api/v1/tokens: the caller's live tokens, newest
// first, without their values.
func (s *Service) handleListTokens(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return err
	}
	toks, total, err := s.auth.ListAPITokens(r.Context(), auth.FromContext(r.Context()).UserID, p.Size, p.Offset())
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(toks, total, p))
	return nil
}

// handleRevokeToken is DELETE /api/v1/tokens/{id}; another user's token is
// a 404, as if it did not exist.
func (s *Service) handleRevokeToken(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	err = s.auth.RevokeAPIToken(r.Context(), auth.FromContext(r.Context()).UserID, id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.NotFound()
	}
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}
