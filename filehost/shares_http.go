package filehost

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// handleCreateShare is POST /api/v1/files/{id}/shares.
func (s *Service) handleCreateShare(w http.ResponseWriter, r *http.Request) error {
	f, err := s.ownFile(r)
	if err != nil {
		return err
	}
	var body shareBody
	if err := httpx.DecodeJSON(w, r, &body); err != nil {
		return err
	}
	req, err := body.check(s.now())
	if err != nil {
		return httpError(err)
	}
	sh, err := s.createShare(r, f.ID, req)
	if err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusCreated, sh)
	return nil
}

// createShare stores a checked share link of file fileID.
func (s *Service) createShare(r *http.Request, fileID string, req shareRequest) (*share, error) {
	sh := &share{ID: sqlstore.NewID(), fileID: fileID, token: newShareToken(), ExpiresAt: req.expiresAt,
		MaxViews: req.maxViews, CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if req.password != "" {
		hash, err := s.auth.HashPassword(req.password)
		if err != nil {
			return nil, err
		}
		sh.passwordHash, sh.HasPassword = hash, true
	}
	if err := s.insertShare(r.Context(), sh); err != nil {
		return nil, err
	}
	sh.setURL(httpx.BaseURL(r))
	return sh, nil
}

// handleListShares is GET /api/v1/files/{id}/shares.
func (s *Service) handleListShares(w http.ResponseWriter, r *http.Request) error {
	f, err := s.ownFile(r)
	if err != nil {
		return err
	}
	shares, err := s.listShares(r.Context(), f.ID)
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	for _, sh := range shares {
		sh.setURL(base)
	}
	httpx.FileAPI.OK(w, http.StatusOK, shares)
	return nil
}

// handleRevokeShare is DELETE /api/v1/files/{id}/shares/{share_id}.
func (s *Service) handleRevokeShare(w http.ResponseWriter, r *http.Request) error {
	f, err := s.ownFile(r)
	if err != nil {
		return err
	}
	shareID, err := httpx.PathID(r, "share_id")
	if err != nil {
		return err
	}
	if err := s.deleteShare(r.Context(), f.ID, shareID); err != nil {
		return httpError(err)
	}
	httpx.FileAPI.OK(w, http.StatusOK, nil)
	return nil
}

// ownFile is the caller's live file named by the path's {id}; 404 for any
// other.
func (s *Service) ownFile(r *http.Request) (*fileRecord, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	f, err := s.fileByID(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if err != nil {
		return nil, httpError(err)
	}
	return f, nil
}

// handleSharePage is GET /s/{token}: the password form, or the file, one
// counted view.
func (s *Service) handleSharePage(w http.ResponseWriter, r *http.Request) {
	sh, f, ok := s.findShare(w, r)
	if !ok {
		return
	}
	if sh.HasPassword && !s.passwordCookieOK(r, sh) {
		msg := ""
		// A form that would refuse every answer says so at once, rather
		// than after the visitor has typed one.
		if until, locked := sh.lockedUntil(s.now()); locked {
			msg = "This link has had too many wrong passwords. It takes answers again at " + until.UTC().Format("15:04") + " UTC."
		}
		s.renderPassword(w, r, http.StatusOK, sh, msg)
		return
	}
	// A HEAD (a link checker) sees whether the page is there without
	// spending a view.
	if r.Method != http.MethodHead {
		counted, err := s.countView(r.Context(), sh.ID)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if !counted {
			// No view left, or it expired since findShare read it.
			if sh.MaxViews != nil && (sh.ExpiresAt == nil || s.now().Before(*sh.ExpiresAt)) {
				s.usedUpLink(w, r)
			} else {
				s.expiredLink(w, r, *sh.ExpiresAt)
			}
			return
		}
	}
	base := httpx.BaseURL(r)
	ticket := url.QueryEscape(s.auth.Seal(shareTicketPurpose, sh.ID, s.now().Add(shareTicketTTL)))
	raw := "/s/raw/" + sh.token + "?t=" + ticket
	page := &sharePage{Name: f.OriginName, Mimetype: f.Mimetype, Kind: shareKind(f), Size: f.Size,
		Width: f.Width, Height: f.Height, PageURL: base + "/s/" + sh.token, MediaURL: base + raw,
		RawPath: raw, DownloadPath: raw + "&download=1", ExpiresAt: sh.ExpiresAt}
	s.renderPublic(w, r, http.StatusOK, "share", f.OriginName, page, nil)
}

// handleSharePassword is POST /s/{token}: the answer to the password form.
func (s *Service) handleSharePassword(w http.ResponseWriter, r *http.Request) {
	sh, _, ok := s.findShare(w, r)
	if !ok {
		return
	}
	if !sh.HasPassword {
		http.Redirect(w, r, "/s/"+sh.token, http.StatusSeeOther)
		return
	}
	ip := httpx.ClientIP(r)
	if blocked, wait := s.shareLimit.Blocked(ip); blocked {
		s.tooMany(w, r, wait, "Too many attempts", "Too many wrong passwords from your address. Wait a minute, then try again.")
		return
	}
	if err := s.auth.CheckAnonForm(w, r); err != nil {
		he := httpx.AsError(err)
		s.renderPassword(w, r, he.Status, sh, "The form expired. Enter the password again.")
		return
	}
	// The link's own count comes before bcrypt, so that answers from many
	// addresses at once cannot check more than it allows.
	window, ok, until, err := s.takeGuess(r.Context(), sh.ID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		s.notFoundLink(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !ok {
		s.tooMany(w, r, until.Sub(s.now()), "Too many attempts",
			"Too many wrong passwords for this link. It takes answers again in a few minutes.")
		return
	}
	if bcrypt.CompareHashAndPassword([]byte(sh.passwordHash), []byte(r.PostFormValue("password"))) != nil {
		s.shareLimit.Allow(ip)
		s.renderPassword(w, r, http.StatusUnauthorized, sh, "That password is not right.")
		return
	}
	if err := s.giveGuessBack(r.Context(), sh.ID, window); err != nil {
		s.serverError(w, r, err)
		return
	}
	exp := s.now().Add(sharePasswordTTL)
	http.SetCookie(w, &http.Cookie{Name: sharePasswordCookie, Value: s.auth.Seal(sharePasswordPurpose, sh.ID, exp),
		Path: "/s/" + sh.token, Expires: exp, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
	http.Redirect(w, r, "/s/"+sh.token, http.StatusSeeOther)
}

// handleShareRaw is GET /s/raw/{token}?t=ticket: the bytes, for a view the
// page counted. A download=1 asks for an attachment.
func (s *Service) handleShareRaw(w http.ResponseWriter, r *http.Request) {
	sh, f, ok := s.findShare(w, r)
	if !ok {
		return
	}
	if id, ok := s.auth.Open(shareTicketPurpose, r.URL.Query().Get("t")); !ok || id != sh.ID {
		s.notFound(w, r)
		return
	}
	disposition := "inline"
	if r.URL.Query().Get("download") == "1" {
		disposition = "attachment"
		if s.presign != nil {
			s.redirectToBytes(w, r, f.Key, f.Mimetype, contentDisposition(disposition, f.OriginName))
			return
		}
	}
	obj, err := s.store.Open(r.Context(), f.Key)
	if err != nil {
		s.notFound(w, r)
		return
	}
	defer obj.Close()
	h := w.Header()
	h.Set("Content-Disposition", contentDisposition(disposition, f.OriginName))
	h.Set("Cache-Control", "private, max-age=900")
	h.Set("Referrer-Policy", "no-referrer")
	if s.accel(w, r, f.Key, newSending(f.Mimetype, `"`+f.MD5+`"`, f.CreatedAt, "")) {
		return
	}
	s.serveContent(w, r, obj, f.Mimetype, `"`+f.MD5+`"`, f.CreatedAt)
}

// findShare finds the open link of the path's token, or answers 404 (a
// counted miss), or 429 to a client over the miss limit.
func (s *Service) findShare(w http.ResponseWriter, r *http.Request) (*share, *fileRecord, bool) {
	if s.overMissLimit(w, r) {
		return nil, nil, false
	}
	token := r.PathValue("token")
	if !validShareToken(token) {
		s.notFoundLink(w, r)
		return nil, nil, false
	}
	sh, f, err := s.openShare(r.Context(), token)
	if err != nil {
		s.serverError(w, r, err)
		return nil, nil, false
	}
	if sh == nil {
		s.notFoundLink(w, r)
		return nil, nil, false
	}
	if sh.ExpiresAt != nil && !s.now().Before(*sh.ExpiresAt) {
		s.expiredLink(w, r, *sh.ExpiresAt)
		return nil, nil, false
	}
	return sh, f, true
}

// expiredLink answers a share link that has expired: still the 404 of
// every dead link (docs/api.md#share-links), and counted as a miss like
// them, but saying when it expired, which is what its visitor needs to
// know (to ask its owner for a new one), not "not found".
func (s *Service) expiredLink(w http.ResponseWriter, r *http.Request, at time.Time) {
	at = at.UTC()
	s.deadLink(w, r, "Link expired", "This share link expired on "+at.Format("2 January 2006 at 15:04")+" UTC. Ask the person who shared it for a new one.",
		"share link expired at "+at.Format(time.RFC3339))
}

// usedUpLink answers a share link whose views are all spent: the same 404.
func (s *Service) usedUpLink(w http.ResponseWriter, r *http.Request) {
	s.deadLink(w, r, "Link used up", "This share link has been opened as many times as it allows. Ask the person who shared it for a new one.",
		"share link has no views left")
}

// deadLink answers 404 for a share link that exists but is closed, with
// its own words: a page for a browser, the envelope-A JSON otherwise,
// counted as a miss as notFoundLink counts one.
func (s *Service) deadLink(w http.ResponseWriter, r *http.Request, title, page, api string) {
	if ok, wait := s.missLimit.Allow(httpx.ClientIP(r)); !ok {
		s.tooManyMisses(w, r, wait)
		return
	}
	if s.public != nil && httpx.PrefersHTML(r) {
		s.renderPublic(w, r, http.StatusNotFound, "message", title, page, nil)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	httpx.FileAPI.Error(w, r, httpx.E(http.StatusNotFound, api))
}

// passwordCookieOK reports whether the request carries this link's
// password cookie.
func (s *Service) passwordCookieOK(r *http.Request, sh *share) bool {
	c, err := r.Cookie(sharePasswordCookie)
	if err != nil {
		return false
	}
	id, ok := s.auth.Open(sharePasswordPurpose, c.Value)
	return ok && id == sh.ID
}

func (s *Service) renderPassword(w http.ResponseWriter, r *http.Request, status int, sh *share, msg string) {
	s.renderPublic(w, r, status, "share-password", "Password required", &passwordForm{Action: "/s/" + sh.token},
		func(v *templates.ConsoleView) {
			v.Error = msg
			v.FormToken = s.auth.AnonFormToken(w, r)
		})
}

// renderPublic writes a public page with the headers of every one: the
// console's strict CSP, no referrer to other sites (share URLs are
// secrets; "no-referrer" would also blank the Origin of the password form,
// which the form check needs), no indexing, no caching. A page that fails to render is logged and answered as text.
func (s *Service) renderPublic(w http.ResponseWriter, r *http.Request, status int, page, title string, data any, more func(*templates.ConsoleView)) {
	v := &templates.ConsoleView{Title: title, BaseURL: httpx.BaseURL(r), Data: data}
	if s.siteName != nil {
		v.SiteName = s.siteName(r.Context())
	}
	if more != nil {
		more(v)
	}
	body, err := s.public.Render(page, v)
	if err != nil {
		httpx.Logger(r).Error("render public page", "page", page, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", auth.ConsoleCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// notFound answers a missing short link, thumbnail or share link: a page
// for a browser (decisions: Accept prefers text/html), the envelope-A JSON
// otherwise. The answer is never cached.
func (s *Service) notFound(w http.ResponseWriter, r *http.Request) {
	if s.public != nil && httpx.PrefersHTML(r) {
		s.renderPublic(w, r, http.StatusNotFound, "message", "Not found",
			"There is nothing at this address. The link may be mistyped, or the file was deleted, has expired or is no longer shared.", nil)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	httpx.FileAPI.Error(w, r, httpx.NotFound())
}

// serveStatic is GET /s/static/{file}: the public pages' assets.
func (s *Service) serveStatic(w http.ResponseWriter, r *http.Request) {
	if s.public == nil || !s.public.ServeAsset(w, r, r.PathValue("file")) {
		s.notFound(w, r)
	}
}

// retryAfter is a Retry-After value: whole seconds, at least one.
func retryAfter(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return strconv.FormatInt(secs, 10)
}
