package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"folio/sqlstore"
)

// MaxJSONBody caps JSON request bodies.
const MaxJSONBody = 1 << 20

// DecodeJSON reads one JSON value into dst from a body of at most
// MaxJSONBody bytes. Malformed JSON, wrong types and trailing data are all
// 400 "invalid request payload". Unknown fields are ignored, so a client may
// send back what it read. A NUL character in a string is refused too:
// PostgreSQL cannot store one, and text should not depend on the backend.
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := LimitBody(w, r, MaxJSONBody); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &Error{Status: http.StatusRequestEntityTooLarge, Msg: TooLarge(MaxJSONBody).Msg, Err: err}
		}
		return &Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
	}
	if hasEscapedNUL(body) {
		return &Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: errors.New("NUL character in a JSON string")}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return &Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Status: http.StatusBadRequest, Msg: "invalid request payload", Err: errors.New("trailing data after JSON value")}
	}
	return nil
}

// hasEscapedNUL reports whether JSON text holds the escape \u0000: the only
// way a NUL can appear in valid JSON, which forbids raw control characters
// in strings. An escaped backslash followed by "u0000" is plain text.
func hasEscapedNUL(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+5 < len(b) && b[i+1] == 'u' && string(b[i+2:i+6]) == "0000" {
			return true
		}
		i++ // skip the escaped character, a backslash included
	}
	return false
}

// Paging is a page number (from 1) and a page size.
type Paging struct {
	Page int
	Size int
}

// Offset is the number of rows to skip.
func (p Paging) Offset() int { return (p.Page - 1) * p.Size }

// ParsePaging reads the page number and the page size from the query
// parameter sizeParam ("size" for envelope A, "page_size" for B). Missing
// values take the defaults; a size above max is capped and a page below 1
// becomes 1; text that is not a number is a 400.
func ParsePaging(r *http.Request, sizeParam string, def, max int) (Paging, error) {
	q := r.URL.Query()
	p := Paging{Page: 1, Size: def}
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, BadRequest("invalid query parameter page")
		}
		p.Page = n
	}
	if s := q.Get(sizeParam); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, BadRequest("invalid query parameter " + sizeParam)
		}
		p.Size = n
	}
	if p.Page < 1 {
		p.Page = 1
	}
	if p.Page > 1_000_000 {
		p.Page = 1_000_000
	}
	if p.Size < 1 {
		p.Size = def
	}
	if p.Size > max {
		p.Size = max
	}
	return p, nil
}

// PathID returns the {name} path value when it is a UUID; otherwise a 404,
// because no resource can have that id.
func PathID(r *http.Request, name string) (string, error) {
	id := strings.ToLower(r.PathValue(name))
	if !sqlstore.ValidID(id) {
		return "", NotFound()
	}
	return id, nil
}

// QueryBool reads an optional boolean query parameter.
func QueryBool(r *http.Request, name string) (*bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return nil, nil
	}
	b, err := sqlstore.ParseBool(s)
	if err != nil {
		return nil, BadRequest("invalid query parameter " + name)
	}
	return &b, nil
}

// QueryID reads an optional UUID query parameter; a malformed one is a 400.
func QueryID(r *http.Request, name string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(r.URL.Query().Get(name)))
	if s != "" && !sqlstore.ValidID(s) {
		return "", BadRequest("invalid query parameter " + name)
	}
	return s, nil
}

// validQueryText reports whether a query string, once decoded, is free of
// NUL and invalid UTF-8: no column can store or match such text, and
// PostgreSQL fails the whole query on it, so it is the client's error on
// every backend. A Router refuses it in the envelope of the owning surface.
func validQueryText(raw string) bool {
	if plainASCII(raw) {
		return true // no escapes, no raw bytes: nothing to decode
	}
	// On malformed escapes ParseQuery still returns the pairs it could
	// decode, which are what handlers see (r.URL.Query drops the rest).
	q, _ := url.ParseQuery(raw)
	for k, vs := range q {
		if !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
			return false
		}
		for _, v := range vs {
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				return false
			}
		}
	}
	return true
}

// plainASCII reports whether s holds only printable ASCII other than '%'.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '%' {
			return false
		}
	}
	return true
}
