package activitypub

import (
	"strconv"
	"strings"
)

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ    string // "type/subtype", lowercased
	params map[string]string
	q      float64
	pos    int
}

// Wants reports whether an Accept header asks for ActivityStreams JSON
// rather than HTML: application/activity+json, or application/ld+json
// without a profile or with the ActivityStreams profile, must have a
// higher q than text/html and than the wildcards (text/*, */*); on a tie
// it wins only when listed first. An empty header, a browser's and curl's
// "*/*" all get HTML. A q of 0 means "not acceptable".
func Wants(accept string) bool {
	var as, other *mediaRange
	for _, mr := range parseAccept(accept) {
		switch {
		case isActivityRange(mr):
			if as == nil || mr.q > as.q {
				as = &mr
			}
		case mr.typ == "text/html" || mr.typ == "text/*" || mr.typ == "*/*":
			if other == nil || mr.q > other.q {
				other = &mr
			}
		}
	}
	if as == nil || as.q <= 0 {
		return false
	}
	if other == nil || as.q > other.q {
		return true
	}
	return as.q == other.q && as.pos < other.pos
}

// isActivityRange reports whether a media range names ActivityStreams
// JSON.
func isActivityRange(mr mediaRange) bool {
	switch mr.typ {
	case "application/activity+json":
		return true
	case "application/ld+json":
		profile, ok := mr.params["profile"]
		if !ok {
			return true
		}
		// A profile is a space-separated list of IRIs.
		for _, p := range strings.Fields(profile) {
			if p == ActivityStreamsContext {
				return true
			}
		}
	}
	return false
}

// IsActivityContentType reports whether a Content-Type is
// application/activity+json or application/ld+json, whatever its
// parameters.
func IsActivityContentType(ct string) bool {
	typ, _, _ := strings.Cut(ct, ";")
	typ = strings.ToLower(strings.TrimSpace(typ))
	return typ == "application/activity+json" || typ == "application/ld+json"
}

// parseAccept reads an Accept header's media ranges, in order, skipping
// any it cannot read (no slash, a q that is not a number from 0 to 1).
// Quoted parameter values may hold commas and semicolons.
func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for i, part := range splitQuoted(accept, ',') {
		fields := splitQuoted(part, ';')
		typ := strings.ToLower(strings.TrimSpace(fields[0]))
		if !strings.Contains(typ, "/") {
			continue
		}
		mr := mediaRange{typ: typ, params: map[string]string{}, q: 1, pos: i}
		ok := true
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`)
			}
			if k == "q" {
				q, err := strconv.ParseFloat(v, 64)
				if err != nil || q < 0 || q > 1 || len(v) > 5 {
					ok = false
				}
				mr.q = q
				continue
			}
			mr.params[k] = v
		}
		if ok {
			out = append(out, mr)
		}
	}
	return out
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var parts []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
