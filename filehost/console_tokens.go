package filehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"folio/auth"
	"folio/templates"
)

// placeholderToken stands for a token's value on the tokens page, which
// never shows one.
const placeholderToken = "YOUR_TOKEN"

// tokensView is the tokens page's data.
type tokensView struct {
	Tokens  []tokenRow
	Pager   *templates.ConsolePager
	Name    string // the create form's input, kept when it is refused
	Expires string
	Once    string // the create form's one-time value (auth.NewOnce)
	Clients clientSetup
}

// tokenRow is a token as the table lists it.
type tokenRow struct {
	auth.APIToken
	Expired bool
}

// tokenCreatedView is the data of the page that shows a new token's value,
// the only one that ever does.
type tokenCreatedView struct {
	Name     string
	Repeated bool // the form arrived again, and this is the token it made
	Value    templates.ConsoleCopy
	Clients  clientSetup
}

// clientSetup is how to point ShareX, PicGo and curl at this site with a
// token (docs/console.md#tokens-and-clients).
type clientSetup struct {
	Token  string
	ShareX string // the .sxcu file's text
	PicGo  string // PicGo's configuration, the lankong uploader's block
	Curl   string
}

func newClientSetup(base, token string) clientSetup {
	return clientSetup{
		Token:  token,
		ShareX: string(indentJSON(newShareXUploader(base, token))),
		PicGo:  string(indentJSON(newPicGoConfig(base, token))),
		Curl:   `curl -H "Authorization: Bearer ` + token + `" -F "file=@photo.jpg" ` + base + "/api/v1/upload",
	}
}

// shareXUploader is a ShareX custom uploader (.sxcu). The {json:...} paths
// name the upload answer's fields (docs/filehost.md, the upload answer);
// the {json:} syntax is that of ShareX 15 and later, hence the version.
// There is no DeletionURL: deleting takes a DELETE with the token, which
// ShareX's "open deletion URL" cannot send.
type shareXUploader struct {
	Version         string
	Name            string
	DestinationType string
	RequestMethod   string
	RequestURL      string
	Headers         map[string]string
	Body            string
	FileFormName    string
	URL             string
	ThumbnailURL    string
	ErrorMessage    string
}

func newShareXUploader(base, token string) shareXUploader {
	return shareXUploader{
		Version:         "15.0.0",
		Name:            "Folio (" + hostOf(base) + ")",
		DestinationType: "ImageUploader, FileUploader",
		RequestMethod:   "POST",
		RequestURL:      base + "/api/v1/upload",
		Headers:         map[string]string{"Authorization": "Bearer " + token, "Accept": "application/json"},
		Body:            "MultipartFormData",
		FileFormName:    "file",
		URL:             "{json:data.links.url}",
		ThumbnailURL:    "{json:data.links.thumbnail_url}",
		ErrorMessage:    "{json:message}",
	}
}

// picGoConfig is the part of PicGo's data.json that selects and sets up
// the lankong (Lsky Pro) uploader, with the plugin's own setting names.
// Version V2 makes it call POST /api/v1/upload and read data.links.url.
type picGoConfig struct {
	PicBed struct {
		Uploader string       `json:"uploader"`
		Current  string       `json:"current"`
		Lankong  picGoLankong `json:"lankong"`
	} `json:"picBed"`
}

type picGoLankong struct {
	LskyProVersion string `json:"lskyProVersion"`
	Server         string `json:"server"`
	Token          string `json:"token"`
	StrategyID     string `json:"strategyId"`
	AlbumID        string `json:"albumId"`
	Permission     int    `json:"permission"`
	IgnoreCertErr  bool   `json:"ignoreCertErr"`
	SyncDelete     bool   `json:"syncDelete"`
}

func newPicGoConfig(base, token string) picGoConfig {
	var c picGoConfig
	c.PicBed.Uploader, c.PicBed.Current = "lankong", "lankong"
	c.PicBed.Lankong = picGoLankong{LskyProVersion: "V2", Server: base, Token: "Bearer " + token}
	return c
}

// indentJSON writes v as people read it; nothing in it is HTML, so < and &
// stay as they are.
func indentJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // plain structs of strings: cannot fail
	return buf.Bytes()
}

// hostOf is the host (and port) of a base URL.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return "folio"
}

// sxcuFileName names the .sxcu download after the host; a port's colon,
// which Windows refuses in file names, becomes a dash.
func sxcuFileName(base string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '-'
	}, hostOf(base))
	return name + ".sxcu"
}

// looksLikeAPIToken reports whether s has the form of an API token: the
// folio_ prefix and URL-safe base64 (auth makes 40 characters of it).
func looksLikeAPIToken(s string) bool {
	rest, ok := strings.CutPrefix(s, auth.APITokenPrefix)
	if !ok || len(rest) < 16 || len(rest) > 128 {
		return false
	}
	for _, r := range rest {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// localTimeLayouts are what a datetime-local field sends (with or without
// seconds), and RFC 3339 for clients that send a zone.
var localTimeLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339}

// parseTokenForm validates the create form with the rules of
// POST /api/v1/tokens. The expiry comes from a datetime-local field, which
// carries no zone: it is read as UTC, as the form says. problem is what to
// tell the user, empty when the input is good.
func parseTokenForm(name, expires string, now time.Time) (string, *time.Time, string) {
	req := tokenRequest{Name: name}
	if s := strings.TrimSpace(expires); s != "" {
		var t time.Time
		var err error
		for _, layout := range localTimeLayouts {
			if t, err = time.Parse(layout, s); err == nil {
				break
			}
		}
		if err != nil {
			return "", nil, "Enter the expiry as a date and time in UTC, such as 2030-01-31T12:00, or leave it empty."
		}
		v := t.UTC().Format(time.RFC3339Nano)
		req.ExpiresAt = &v
	}
	n, exp, err := req.parse(now)
	var ii *invalidInput
	switch {
	case err == nil:
		return n, exp, ""
	case errors.As(err, &ii) && strings.HasPrefix(ii.msg, "expires_at"):
		return "", nil, "The expiry must be in the future (times are UTC)."
	default:
		return "", nil, "Give the token a name of 1 to 100 characters."
	}
}
