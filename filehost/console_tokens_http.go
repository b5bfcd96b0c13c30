package filehost

import (
	"errors"
	"net/http"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// tokensPageSize is how many tokens the tokens page lists at once.
const tokensPageSize = 20

// handleConsoleTokens is GET /console/tokens: the account's live tokens,
// never their values, the form to make one, and how to set up clients.
func (s consoleHandlers) handleConsoleTokens(w http.ResponseWriter, r *http.Request) error {
	return s.renderTokens(w, r, http.StatusOK, "", "", "")
}

// renderTokens renders the tokens page; name and expires are the create
// form's input, kept when problem says why it was refused.
func (s consoleHandlers) renderTokens(w http.ResponseWriter, r *http.Request, status int, name, expires, problem string) error {
	p, err := httpx.ParsePaging(r, "size", tokensPageSize, 100)
	if err != nil {
		return err
	}
	toks, total, err := s.auth.ListAPITokens(r.Context(), auth.FromContext(r.Context()).UserID, p.Size, p.Offset())
	if err != nil {
		return err
	}
	now := s.now()
	rows := make([]tokenRow, len(toks))
	for i, t := range toks {
		rows[i] = tokenRow{APIToken: t, Expired: t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)}
	}
	v := s.console.View(w, r, "API tokens", "tokens")
	v.Error = problem
	v.Data = tokensView{Tokens: rows, Name: name, Expires: expires, Once: auth.NewOnce(),
		Pager:   templates.NewConsolePager("/console/tokens", r.URL.Query(), p.Page, p.Size, total),
		Clients: newClientSetup(v.BaseURL, placeholderToken)}
	s.console.Render(w, r, status, "tokens", v)
	return nil
}

// handleConsoleCreateToken is POST /console/tokens. The answer is the page
// showing the value, not a redirect: the value exists only in this answer
// and must not travel in a URL or a cookie. The form's one-time value
// makes a form sent twice (a double click, a reload) show the one token it
// made, not make a second one nobody saw (docs/console.md#tokens-and-clients).
func (s consoleHandlers) handleConsoleCreateToken(w http.ResponseWriter, r *http.Request) error {
	rawName, rawExpires := r.PostFormValue("name"), r.PostFormValue("expires_at")
	name, exp, problem := parseTokenForm(rawName, rawExpires, s.now())
	if problem != "" {
		return s.renderTokens(w, r, http.StatusUnprocessableEntity, rawName, rawExpires, problem)
	}
	userID := auth.FromContext(r.Context()).UserID
	var tok *auth.APIToken
	var repeated bool
	var err error
	if once := r.PostFormValue("once"); once != "" {
		tok, repeated, err = s.auth.CreateAPITokenOnce(r.Context(), userID, name, exp, once)
	} else {
		// A form from before the one-time field: no second send to catch.
		tok, err = s.auth.CreateAPIToken(r.Context(), userID, name, exp)
	}
	if errors.Is(err, auth.ErrFormUsed) {
		problem := "This form was already sent. Create the token again with the form below."
		if tok != nil {
			problem = "This form was already sent: it made the token “" + tok.Name + "”, whose value was shown then. To have a value to copy, create another token."
		}
		return s.renderTokens(w, r, http.StatusConflict, rawName, rawExpires, problem)
	}
	if err != nil {
		return err
	}
	v := s.console.View(w, r, "Token created", "tokens")
	v.Data = tokenCreatedView{Name: tok.Name, Repeated: repeated,
		Value:   templates.ConsoleCopy{ID: "token-value", Label: "Your new token", Value: tok.Token},
		Clients: newClientSetup(v.BaseURL, tok.Token)}
	s.console.Render(w, r, http.StatusOK, "token-created", v)
	return nil
}

// handleConsoleRevokeToken is POST /console/tokens/{id}/revoke; another
// user's token is a 404, as if it did not exist.
func (s consoleHandlers) handleConsoleRevokeToken(w http.ResponseWriter, r *http.Request) error {
	notFound := httpx.E(http.StatusNotFound, "There is no such token.")
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return notFound
	}
	err = s.auth.RevokeAPIToken(r.Context(), auth.FromContext(r.Context()).UserID, id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/tokens", "Token revoked.")
	return nil
}

// handleConsoleShareX is POST /console/tokens/sxcu: a ShareX custom
// uploader for this site and the token in the form, as a download. It is a
// POST so that the token never sits in a URL.
func (s consoleHandlers) handleConsoleShareX(w http.ResponseWriter, r *http.Request) error {
	tok := strings.TrimSpace(r.PostFormValue("token"))
	if !looksLikeAPIToken(tok) {
		return httpx.E(http.StatusUnprocessableEntity, "That is not an API token: tokens start with "+auth.APITokenPrefix+".")
	}
	base := httpx.BaseURL(r)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Disposition", `attachment; filename="`+sxcuFileName(base)+`"`)
	_, _ = w.Write(indentJSON(newShareXUploader(base, tok)))
	return nil
}
