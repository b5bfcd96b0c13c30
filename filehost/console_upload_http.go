package filehost

import (
	"net/http"
	"net/url"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/templates"
)

// handleConsoleUploadPage is GET /console/upload.
func (s consoleHandlers) handleConsoleUploadPage(w http.ResponseWriter, r *http.Request) error {
	v, _, err := s.uploadView(w, r, false)
	if err != nil {
		return err
	}
	s.console.Render(w, r, http.StatusOK, "upload", v)
	return nil
}

// handleConsoleUpload is POST /console/upload, the page's form without
// JavaScript: the files go through the API's upload path, and the page
// comes back with their links.
func (s consoleHandlers) handleConsoleUpload(w http.ResponseWriter, r *http.Request) error {
	b, err := s.upload(w, r, auth.FromContext(r.Context()).UserID, consoleMaxFiles, nil)
	return s.renderUploaded(w, r, false, b, err)
}

// errGuestPageOff answers the guest page while guest upload is off.
var errGuestPageOff = httpx.E(http.StatusNotFound, "There is no such page.")

// handleConsoleGuestPage is GET /upload, the upload page for visitors
// without an account while upload.allow_guest_upload is on.
func (s consoleHandlers) handleConsoleGuestPage(w http.ResponseWriter, r *http.Request) error {
	if !s.settings.Get(r.Context()).Upload.AllowGuestUpload {
		return errGuestPageOff
	}
	v, _, err := s.uploadView(w, r, true)
	if err != nil {
		return err
	}
	s.console.Render(w, r, http.StatusOK, "upload", v)
	return nil
}

// handleConsoleGuestUpload is POST /upload, the guest form without
// JavaScript. It takes one file, and spends the per-address allowance of
// POST /api/v1/public/upload, so the form is no way around it.
func (s consoleHandlers) handleConsoleGuestUpload(w http.ResponseWriter, r *http.Request) error {
	if !s.settings.Get(r.Context()).Upload.AllowGuestUpload {
		return errGuestPageOff
	}
	if err := s.console.CheckAnonQueryToken(r); err != nil {
		return err
	}
	if ok, wait := s.guestLimit.Allow(httpx.ClientIP(r)); !ok {
		return tooMany(w, wait, "Too many uploads from your address. Wait a minute and try again.")
	}
	b, err := s.upload(w, r, s.auth.GuestID(), 1, nil)
	return s.renderUploaded(w, r, true, b, err)
}

// uploadView builds the upload page: the limits of the upload settings,
// and for a user the albums and the quota.
func (s consoleHandlers) uploadView(w http.ResponseWriter, r *http.Request, guest bool) (*templates.ConsoleView, *uploadPage, error) {
	set := s.settings.Get(r.Context()).Upload
	title := "Upload"
	if guest {
		title = "Guest upload"
	}
	v := s.console.View(w, r, title, "upload")
	data := &uploadPage{Guest: guest, MaxFileSize: set.MaxFileSize, MaxFiles: consoleMaxFiles,
		AllowedTypes: set.AllowedTypes, ForbiddenExts: set.ForbiddenExts, Accept: acceptList(set.AllowedTypes),
		PerMinute: guestPerMinute, Expiries: expiryChoices(), Formats: linkFormats()}
	data.Format, _ = linkFormat("")
	if guest {
		data.Visibility = newVisibilityField("upload-visibility", "visibility", visUnlisted, true)
		data.Action = "/upload?form_token=" + url.QueryEscape(v.FormToken)
		data.Endpoint = "/api/v1/public/upload"
		data.MaxFiles = 1
	} else {
		userID := auth.FromContext(r.Context()).UserID
		data.Action = "/console/upload?form_token=" + url.QueryEscape(v.FormToken)
		data.Endpoint = "/api/v1/upload"
		data.TusEndpoint, data.TusThreshold, data.TusChunk = "/api/v1/tus/", consoleTusThreshold, consoleTusChunk
		data.User = userID
		albums, _, err := s.listAlbums(r.Context(), albumQuery{UserID: userID, OrderBy: "name", Limit: consoleMaxAlbums})
		if err != nil {
			return nil, nil, err
		}
		data.Albums = albums
		u, err := s.auth.UserByID(r.Context(), userID)
		if err != nil {
			return nil, nil, err
		}
		data.UsedBytes, data.QuotaBytes, data.FileCount = u.UsedBytes, u.QuotaBytes, u.FileCount
		data.Visibility = newVisibilityField("upload-visibility", "visibility", u.DefaultVisibility, false)
	}
	v.Data = data
	return v, data, nil
}

// renderUploaded answers a no-JavaScript upload form: the page again, with
// a card for each stored file and the error, if any, under the file it is
// about (or above the form when it is about the form). Its status is the
// error's, as the API's would be.
func (s consoleHandlers) renderUploaded(w http.ResponseWriter, r *http.Request, guest bool, b *uploadBatch, uerr error) error {
	v, data, err := s.uploadView(w, r, guest)
	if err != nil {
		return err
	}
	data.Posted = true
	if b != nil {
		data.Format, _ = linkFormat(b.fields["format"])
		lines := make([]string, 0, len(b.saved))
		for i, f := range b.saved {
			c := newUploadCard(i, f, data.Format)
			data.Results = append(data.Results, c)
			lines = append(lines, c.Link)
		}
		data.AllLinks = strings.Join(lines, "\n")
		data.Skipped = b.skipped
		if a := b.fields["album_id"]; a != "" {
			data.AlbumID = a
		}
		if v := b.fields["visibility"]; validVisibility(v) {
			data.Visibility.Selected = v
		}
		data.ExpiresIn = b.fields["expires_in"]
	}
	status := http.StatusOK
	if uerr != nil {
		he := httpx.AsError(uerr)
		status = he.Status
		size := int64(-1)
		if b != nil && b.failedSize > 0 {
			size = b.failedSize
		}
		msg := uploadProblem(he, s.settings.Get(r.Context()).Upload, size, data.UsedBytes, data.QuotaBytes)
		// A fault of ours is logged, never shown; the files stored before
		// it keep their cards.
		if he.Status >= 500 && he.Status != http.StatusInsufficientStorage {
			httpx.Logger(r).Error("console upload failed", "path", r.URL.Path, "err", uerr)
			status, msg = http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment."
		}
		if b != nil && b.failed != "" {
			data.Failed = &uploadCard{ID: "r-failed", Name: b.failed, Size: size, Badge: strings.ToUpper(nameExt(b.failed)), Error: msg}
			// The files of a form are all received before any is
			// stored, then stored in turn until one fails: the others
			// may or may not have been, and the cards say which.
			if b.taken > 1 {
				v.Error = "Only the files shown as uploaded below were stored; send the others again."
			}
		} else {
			v.Error = msg
		}
	}
	s.console.Render(w, r, status, "upload", v)
	return nil
}
