package filehost

import (
	"crypto/rand"
	"encoding/base64"
	"time"
	"unicode/utf8"

	"folio/auth"
)

// Share links (docs/filehost.md#share-links) open one file to whoever has
// the link, for a while, a number of views, or behind a password, without
// making the file public. The page counts the views; the bytes are served
// only with a short-lived ticket that a counted view hands out, so a view
// limit cannot be dodged by fetching the bytes directly.

// share is a share link as the API shows it.
type share struct {
	ID          string     `json:"id"`
	URL         string     `json:"url"`
	ExpiresAt   *time.Time `json:"expires_at"`
	MaxViews    *int       `json:"max_views"`
	Views       int        `json:"views"`
	HasPassword bool       `json:"has_password"`
	CreatedAt   time.Time  `json:"created_at"`

	fileID       string
	token        string
	passwordHash string
	guesses      int        // wrong answers in the window (less right ones taken back)
	guessWindow  *time.Time // when the window began; nil: none yet
}

// lockedUntil is when the link's password form opens again, if at now
// its window's wrong answers are spent.
func (sh *share) lockedUntil(now time.Time) (time.Time, bool) {
	if sh.guessWindow == nil || sh.guesses < shareGuesses {
		return time.Time{}, false
	}
	end := sh.guessWindow.Add(shareGuessWindow)
	return end, end.After(now)
}

// setURL makes the link's URL from base (scheme://host).
func (sh *share) setURL(base string) { sh.URL = base + "/s/" + sh.token }

// Limits of a share link.
const (
	shareTokenBytes  = 24 // 192 random bits, 32 characters
	maxShareViews    = 1_000_000_000
	minSharePassword = 8  // characters (code points), not bytes
	maxSharePassword = 72 // bytes: bcrypt reads no more
	// At most shareGuesses wrong answers to a link's password form, from
	// all addresses together, in a window of shareGuessWindow that begins
	// with the first of them; then every answer, right or wrong, is 429
	// until the window ends.
	shareGuesses     = 20
	shareGuessWindow = 15 * time.Minute
	shareTicketTTL   = 15 * time.Minute
	sharePasswordTTL = 24 * time.Hour
	// Purposes of the values signed for share links.
	shareTicketPurpose   = "folio share ticket v1"
	sharePasswordPurpose = "folio share password v1"
	sharePasswordCookie  = "folio_share"
)

// shareBody is the body of POST /api/v1/files/{id}/shares; every field may
// be left out or null.
type shareBody struct {
	ExpiresAt *string `json:"expires_at"`
	MaxViews  *int64  `json:"max_views"`
	Password  *string `json:"password"`
}

// shareRequest is a checked shareBody.
type shareRequest struct {
	expiresAt *time.Time
	maxViews  *int
	password  string // "" for none
}

// check validates the body at now.
func (b shareBody) check(now time.Time) (shareRequest, error) {
	var req shareRequest
	if b.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *b.ExpiresAt)
		if err != nil {
			return req, invalid("expires_at must be an RFC 3339 time such as 2026-12-31T23:59:59Z")
		}
		if !t.After(now) {
			return req, invalid("expires_at must be in the future")
		}
		t = t.UTC().Truncate(time.Microsecond)
		req.expiresAt = &t
	}
	if b.MaxViews != nil {
		if *b.MaxViews < 1 || *b.MaxViews > maxShareViews {
			return req, invalid("max_views must be from 1 to 1000000000")
		}
		n := int(*b.MaxViews)
		req.maxViews = &n
	}
	if b.Password != nil {
		p := *b.Password
		if len(p) > maxSharePassword || !utf8.ValidString(p) {
			return req, invalid("password must be at most 72 bytes of text")
		}
		if utf8.RuneCountInString(p) < minSharePassword {
			return req, invalid("password must be at least 8 characters long")
		}
		req.password = p
	}
	return req, nil
}

// newShareToken makes a link's random token.
func newShareToken() string {
	b := make([]byte, shareTokenBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validShareToken reports whether t has exactly the shape newShareToken
// writes, so that anything else is 404 without a database read.
func validShareToken(t string) bool { return auth.CanonicalBase64URL(t, shareTokenBytes) }

// sharePage is the share page's data.
type sharePage struct {
	Name         string
	Mimetype     string
	Kind         string // image, video, audio or file: how the page shows it
	Size         int64
	Width        int
	Height       int
	PageURL      string // absolute, for link previews
	MediaURL     string // absolute, with a ticket, for link previews
	RawPath      string // the bytes, with a ticket
	DownloadPath string // the bytes as an attachment, with a ticket
	ExpiresAt    *time.Time
}

// shareKind decides how the page shows a file: inline only what browsers
// show as passive media.
func shareKind(f *fileRecord) string {
	if !inlineSafe(f.Mimetype) {
		return "file"
	}
	return f.FileType
}

// passwordForm is the password page's data.
type passwordForm struct{ Action string }
