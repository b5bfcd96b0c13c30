package filehost

import (
	"context"
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
)

// adminUserRequest is the body of POST /api/v1/admin/users.
type adminUserRequest struct {
	Username   string `json:"username"`
	Email      string `json:"email"`
	Password   string `json:"password"`
	Role       string `json:"role"`
	QuotaBytes *int64 `json:"quota_bytes"` // omitted: upload.default_quota_bytes
}

// adminUserPatch is the body of PATCH /api/v1/admin/users/{id}: nil
// fields stay as they are.
type adminUserPatch struct {
	Status     *string `json:"status"`
	Role       *string `json:"role"`
	QuotaBytes *int64  `json:"quota_bytes"`
	Password   *string `json:"password"`
}

// handleAdminListUsers is GET /api/v1/admin/users: every user, the guest
// included, oldest first; keyword matches username or email.
func (s *Service) handleAdminListUsers(w http.ResponseWriter, r *http.Request) error {
	p, err := httpx.ParsePaging(r, "size", 20, 100)
	if err != nil {
		return err
	}
	users, total, err := s.auth.ListUsers(r.Context(), r.URL.Query().Get("keyword"), p.Size, p.Offset())
	if err != nil {
		return err
	}
	httpx.FileAPI.OK(w, http.StatusOK, httpx.NewFileAPIPage(users, total, p))
	return nil
}

// handleAdminCreateUser is POST /api/v1/admin/users.
func (s *Service) handleAdminCreateUser(w http.ResponseWriter, r *http.Request) error {
	var req adminUserRequest
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	quota := s.settings.Get(r.Context()).Upload.DefaultQuotaBytes
	if req.QuotaBytes != nil {
		quota = *req.QuotaBytes
	}
	u, err := s.auth.CreateUser(r.Context(), auth.NewUser{Username: req.Username, Email: req.Email,
		Password: req.Password, Role: strings.TrimSpace(req.Role), QuotaBytes: quota})
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusCreated, u)
	return nil
}

// handleAdminGetUser is GET /api/v1/admin/users/{id}.
func (s *Service) handleAdminGetUser(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	u, err := s.auth.UserByID(r.Context(), id)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, u)
	return nil
}

// handleAdminPatchUser is PATCH /api/v1/admin/users/{id}. Disabling a user
// stops their tokens at once (every request checks the status).
func (s *Service) handleAdminPatchUser(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	var req adminUserPatch
	if err := httpx.DecodeJSON(w, r, &req); err != nil {
		return err
	}
	if _, err := s.auth.UserByID(r.Context(), id); err != nil {
		return httpError(err) // unknown ids are 404 before any rule about them
	}
	u, err := s.auth.UpdateUser(r.Context(), id, auth.UserPatch{Status: req.Status, Role: req.Role,
		QuotaBytes: req.QuotaBytes, Password: req.Password})
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, u)
	return nil
}

// handleAdminDeleteUser is DELETE /api/v1/admin/users/{id}: the user, their
// albums and tokens, and their files (stored content goes when no other
// record shares it).
func (s *Service) handleAdminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return err
	}
	if err := s.removeUser(r.Context(), id); err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}

// removeUser deletes a user with everything they own; the administrator and
// the guest cannot be deleted (auth.ErrProtectedUser).
func (s *Service) removeUser(ctx context.Context, id string) error {
	if id == s.auth.AdminID() || id == s.auth.GuestID() {
		return auth.ErrProtectedUser
	}
	// Disable first so that no new upload of theirs lands between the
	// removal of their files and of the user.
	disabled := auth.StatusDisabled
	if _, err := s.auth.UpdateUser(ctx, id, auth.UserPatch{Status: &disabled}); err != nil {
		return err
	}
	if err := s.deleteUserFiles(ctx, id); err != nil {
		return err
	}
	return s.auth.DeleteUser(ctx, id)
}
