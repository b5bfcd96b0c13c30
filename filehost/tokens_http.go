package filehost

import (
	"errors"
	"net/http"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
)

// handleCreateToken is POST /api/v1/tokens: the only answer that carries the
// token's value.
func (s *Service) handleCreateToken(w http.ResponseWriter, r *http.Request) error {
	var req tokenRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	name, exp, err := req.parse(s.now())
	if err != nil {
		return httpError(err)
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
