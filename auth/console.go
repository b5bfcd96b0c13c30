package auth

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"folio/httpx"
	"folio/templates"
)

// Console is the signed-in frame of the web console that the blog and the
// file host both hang their pages in (docs/console.md): who may see a page,
// the form token every form carries, the security headers of every page,
// one-shot flash messages, and error pages. Sign-in itself is the file
// host's, which owns accounts; a console session is an ordinary
// folio_session.
type Console struct {
	auth     *Service
	tmpl     *templates.Console
	siteName func(context.Context) string
}

// NewConsole builds the frame. siteName, when not nil, names the site in
// every page title.
func NewConsole(a *Service, t *templates.Console, siteName func(context.Context) string) *Console {
	return &Console{auth: a, tmpl: t, siteName: siteName}
}

// Templates are the console's templates and assets.
func (c *Console) Templates() *templates.Console { return c.tmpl }

// ConsoleCSP is the Content-Security-Policy of every console page: nothing
// from another origin, no inline script or style, never framed. Images may
// be blob: URLs, for the upload page's previews of files not yet sent.
const ConsoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// ConsoleHeaders sets the headers of every console page and asset: the
// CSP, no framing, no caching of pages that show private data.
func ConsoleHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ConsoleCSP)
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// ServeAsset is GET /console/static/{file}.
func (c *Console) ServeAsset(w http.ResponseWriter, r *http.Request) {
	if !c.tmpl.ServeAsset(w, r, r.PathValue("file")) {
		c.Fail(w, r, httpx.NotFound())
	}
}

// Identity returns the console session's identity, or nil. Only a session
// cookie signs a browser in to the console: a Bearer token or the file
// API's access cookie does not.
func (c *Console) Identity(r *http.Request) (*Identity, error) {
	if idn := FromContext(r.Context()); idn != nil && idn.Via == "session" {
		return idn, nil
	}
	if _, err := r.Cookie(SessionCookie); err != nil {
		return nil, nil
	}
	idn, err := c.auth.Authenticate(withoutHeaderAuth(r))
	if err != nil && !errors.Is(err, errUnauthenticated) {
		return nil, err
	}
	if idn == nil || idn.Via != "session" {
		return nil, nil
	}
	return idn, nil
}

// withoutHeaderAuth is r without an Authorization header, so that only its
// cookies are judged.
func withoutHeaderAuth(r *http.Request) *http.Request {
	if r.Header.Get("Authorization") == "" {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.Header.Del("Authorization")
	return r2
}

// Require lets a signed-in account through to a console page (any account,
// or only the administrator when admin is set) and checks that every unsafe
// request names the site (FromSite) and carries the form token. Without a
// session a page redirects to the sign-in page, which comes back here
// afterwards; a user reaching an administrator page gets 403.
func (c *Console) Require(admin bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			idn, err := c.Identity(r)
			if err != nil {
				c.Fail(w, r, err)
				return
			}
			if idn == nil {
				target := "/console/login"
				if r.Method == http.MethodGet && r.URL.Path != "/console/" {
					target += "?next=" + url.QueryEscape(r.URL.RequestURI())
				}
				http.Redirect(w, r, target, http.StatusSeeOther)
				return
			}
			noteIdentity(r, idn)
			r = r.WithContext(WithIdentity(r.Context(), idn))
			if admin && !idn.IsAdmin() {
				c.Fail(w, r, httpx.Forbidden("This page is for the administrator."))
				return
			}
			if !FromSite(r) {
				c.Fail(w, r, errFormRefused)
				return
			}
			if err := parseForm(w, r); err != nil {
				c.Fail(w, r, err)
				return
			}
			if !c.formOK(r, idn) {
				c.Fail(w, r, errFormRefused)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// errFormRefused is the answer to a form from another site, one that names
// no site at all, or an expired one.
var errFormRefused = httpx.Forbidden("This form came from another site or has expired. Go back, reload the page and try again.")

// formOK checks an unsafe request's form token. The token is read
// from the X-Form-Token header, or from the form; a multipart body (a file
// upload) carries it in the query string instead, so that checking it never
// reads the file.
func (c *Console) formOK(r *http.Request, idn *Identity) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	tok := r.Header.Get("X-Form-Token")
	if tok == "" {
		if isMultipart(r) {
			tok = r.URL.Query().Get("form_token")
		} else {
			tok = r.PostFormValue("form_token")
		}
	}
	return tok != "" && c.auth.ValidFormToken(idn.SessionID, tok)
}

// parseForm reads a form body, up to maxFormBytes. Text no database can
// store (a NUL, invalid UTF-8) is refused with 422 before any handler sees
// it, as in every JSON body (docs/design.md, HTTP).
func parseForm(w http.ResponseWriter, r *http.Request) error {
	if isMultipart(r) || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if err := httpx.LimitBody(w, r, maxFormBytes); err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return httpx.E(http.StatusRequestEntityTooLarge, "the form is too large (at most 1 MiB)")
		}
		return httpx.BadRequest("the form could not be read")
	}
	for _, vals := range r.PostForm {
		for _, v := range vals {
			if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
				return httpx.E(http.StatusUnprocessableEntity, "the form holds text that cannot be stored")
			}
		}
	}
	return nil
}

// maxFormBytes bounds a console form that is not a file upload.
const maxFormBytes = 1 << 20

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// CheckAnonForm checks a form shown before sign-in (sign-in, registration,
// the second-factor step): the site named (FromSite), and the token bound
// to the browser's form cookie.
func (c *Console) CheckAnonForm(w http.ResponseWriter, r *http.Request) error {
	return c.auth.CheckAnonForm(w, r)
}

// CheckAnonForm checks a form posted by a browser that has no session (the
// console's sign-in pages, a share link's password form): the site named
// (FromSite), a readable form body, and the token bound to the browser's
// form cookie.
func (s *Service) CheckAnonForm(w http.ResponseWriter, r *http.Request) error {
	if !FromSite(r) {
		return errFormRefused
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if !s.ValidAnonFormToken(r, r.PostFormValue("form_token")) {
		return errFormRefused
	}
	return nil
}

// CheckAnonQueryToken checks a multipart form posted before sign-in (the
// guest upload page): the site named (FromSite), and the form_token of the
// query string bound to the browser's form cookie, so that checking it never
// reads the file.
func (c *Console) CheckAnonQueryToken(r *http.Request) error {
	if !FromSite(r) || !c.auth.ValidAnonFormToken(r, r.URL.Query().Get("form_token")) {
		return errFormRefused
	}
	return nil
}

// Handle adapts a console handler that returns its error: the error is
// answered with an error page.
func (c *Console) Handle(h httpx.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			c.Fail(w, r, err)
		}
	})
}

// View starts the view of a page for r: the account, the form token, the
// site's name and base URL, and the flash left by the previous request.
func (c *Console) View(w http.ResponseWriter, r *http.Request, title, section string) *templates.ConsoleView {
	v := &templates.ConsoleView{Title: title, Section: section, BaseURL: httpx.BaseURL(r)}
	if c.siteName != nil {
		v.SiteName = c.siteName(r.Context())
	}
	if idn := FromContext(r.Context()); idn != nil && idn.Via == "session" {
		v.User = &templates.ConsoleUser{ID: idn.UserID, Username: idn.Username, Role: idn.Role}
		v.FormToken = c.auth.FormToken(idn.SessionID)
	} else {
		v.FormToken = c.auth.AnonFormToken(w, r)
	}
	if ck, err := r.Cookie(flashCookie); err == nil {
		v.Flash, _ = url.QueryUnescape(ck.Value)
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
	}
	return v
}

// Render writes a console page.
func (c *Console) Render(w http.ResponseWriter, r *http.Request, status int, page string, v *templates.ConsoleView) {
	body, err := c.tmpl.Render(page, v)
	if err != nil {
		httpx.Logger(r).Error("console: render", "page", page, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// flashCookie carries a one-shot confirmation across a redirect.
const flashCookie = "folio_flash"

// Redirect answers a form with 303 to another page, which shows flash once.
func (c *Console) Redirect(w http.ResponseWriter, r *http.Request, to, flash string) {
	if flash != "" {
		http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: url.QueryEscape(flash), Path: "/", MaxAge: 60,
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: httpx.IsHTTPS(r)})
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// Fail answers err with the console's error page: its status, and its
// message for a client error; a server error is logged and never shown.
func (c *Console) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if httpx.ClientGone(w, r, err) {
		return
	}
	he := httpx.AsError(err)
	msg := he.Msg
	if he.Status >= 500 {
		httpx.Logger(r).Error("request failed", "method", r.Method, "path", r.URL.Path,
			"ip", httpx.ClientIP(r), "status", he.Status, "err", err)
		msg = "Something went wrong on our side. Try again in a moment."
	}
	if FromContext(r.Context()) == nil {
		// A page outside any guard (a miss, say) still shows who is signed in.
		if idn, err := c.Identity(r); err == nil && idn != nil {
			r = r.WithContext(WithIdentity(r.Context(), idn))
		}
	}
	title := http.StatusText(he.Status)
	switch {
	case he.Status == http.StatusNotFound:
		title = "Page not found"
	case title == "":
		title = "Error"
	}
	v := c.View(w, r, title, "")
	v.Data = consoleError{Status: he.Status, Message: httpx.Sentence(msg)}
	c.Render(w, r, he.Status, "error", v)
}

type consoleError struct {
	Status  int
	Message string
}

// SafeNext is where a sign-in may send the browser afterwards: a path
// within the console, never another site.
func SafeNext(next string) string {
	if strings.HasPrefix(next, "/console/") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		if u, err := url.Parse(next); err == nil && u.Host == "" && u.Scheme == "" {
			return next
		}
	}
	return "/console/"
}
