package httpx

import (
	"net/http"
	"strconv"
	"strings"
)

// PrefersHTML reports whether r's Accept header asks for a page rather
// than JSON: text/html (or XHTML) named explicitly with a weight above
// zero, and above that of application/json (a tie goes to the one named
// first). Browsers send such headers; API clients and curl ("*/*") do not,
// and get JSON.
func PrefersHTML(r *http.Request) bool {
	htmlQ, htmlAt := -1.0, -1
	jsonQ, jsonAt := -1.0, -1
	for i, part := range strings.Split(r.Header.Get("Accept"), ",") {
		media, params, _ := strings.Cut(part, ";")
		media = strings.ToLower(strings.TrimSpace(media))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0
				}
				q = f
			}
		}
		switch media {
		case "text/html", "application/xhtml+xml":
			if q > htmlQ {
				htmlQ, htmlAt = q, i
			}
		case "application/json":
			jsonQ, jsonAt = q, i
		case "application/*", "*/*":
			if jsonAt < 0 {
				jsonQ = max(jsonQ, q)
			}
		}
	}
	switch {
	case htmlQ <= 0:
		return false
	case htmlQ != jsonQ:
		return htmlQ > jsonQ
	}
	return jsonAt < 0 || htmlAt < jsonAt
}
