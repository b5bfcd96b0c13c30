package filehost

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"folio/httpx"
	"folio/sqlstore"
)

// handleConsoleCreateShare is POST /console/files/{id}/shares: the share
// form of a file's page, with the rules of POST /api/v1/files/{id}/shares;
// the expiry comes as seconds from now, as the upload form's does.
func (s consoleHandlers) handleConsoleCreateShare(w http.ResponseWriter, r *http.Request) error {
	f, err := s.consoleFile(r)
	if err != nil {
		return err
	}
	now := s.now()
	var body shareBody
	fail := func(msg string) error {
		return s.renderFile(w, r, http.StatusUnprocessableEntity, newFileView(f), msg)
	}
	if v := r.PostFormValue("expires_in"); v != "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 1 || secs > int64(maxExpiry/time.Second) {
			return fail("Choose when the link expires from the list.")
		}
		at := now.Add(time.Duration(secs) * time.Second).UTC().Format(time.RFC3339Nano)
		body.ExpiresAt = &at
	}
	if v := strings.TrimSpace(r.PostFormValue("max_views")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxShareViews {
			return fail("Enter from 1 to 1000000000 views, or leave it empty.")
		}
		body.MaxViews = &n
	}
	if v := r.PostFormValue("password"); v != "" {
		runes := utf8.RuneCountInString(v)
		switch {
		case len(v) > maxSharePassword && runes <= maxSharePassword:
			return fail("That password is too long: accented letters, other scripts and emoji take 2 to 4 of the 72 bytes a password may use.")
		case len(v) > maxSharePassword || runes < minSharePassword:
			return fail("Use a password of 8 to 72 characters, or leave it empty.")
		}
		body.Password = &v
	}
	req, err := body.check(now)
	var ii *invalidInput
	if errors.As(err, &ii) {
		return fail(httpx.Sentence(ii.msg))
	}
	if err != nil {
		return err
	}
	if _, err := s.createShare(r, f.ID, req); errors.Is(err, sqlstore.ErrNotFound) {
		return errNoSuchFile
	} else if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/files/"+f.ID, "Share link created.")
	return nil
}

// handleConsoleRevokeShare is POST /console/files/{id}/shares/{share_id}/delete.
func (s consoleHandlers) handleConsoleRevokeShare(w http.ResponseWriter, r *http.Request) error {
	f, err := s.consoleFile(r)
	if err != nil {
		return err
	}
	shareID, err := httpx.PathID(r, "share_id")
	if err != nil {
		return httpx.E(http.StatusNotFound, "There is no such share link.")
	}
	if err := s.deleteShare(r.Context(), f.ID, shareID); errors.Is(err, sqlstore.ErrNotFound) {
		return httpx.E(http.StatusNotFound, "There is no such share link.")
	} else if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/files/"+f.ID, "Share link revoked: it no longer opens the file.")
	return nil
}
