package storage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AWS Signature Version 4, written here on crypto/hmac and crypto/sha256 so
// that the S3 store needs no SDK (docs/filehost.md#s3). The signer covers
// exactly what an S3 client needs: header authorisation with every header
// the request carries, and presigned query authorisation of a GET.

const (
	sigAlgorithm    = "AWS4-HMAC-SHA256"
	sigTimeFormat   = "20060102T150405Z"
	unsignedPayload = "UNSIGNED-PAYLOAD"
	emptySHA256     = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// signer holds the credentials and scope one S3 store signs with.
type signer struct {
	accessKey, secretKey, region, service string
	// token, when set, is sent as x-amz-security-token (temporary
	// credentials; only the test vectors use it today).
	token string
}

// sign adds X-Amz-Date (and the session token) to req and then its
// Authorization header, signing every header req.Header holds and the host.
// payloadHash is the hex SHA-256 of the body, or unsignedPayload. The URL's
// path and query are rewritten to their canonical escaping, so that what is
// sent is byte for byte what was signed.
func (s signer) sign(req *http.Request, payloadHash string, now time.Time) {
	stamp := now.UTC().Format(sigTimeFormat)
	req.Header.Set("X-Amz-Date", stamp)
	if s.token != "" {
		req.Header.Set("X-Amz-Security-Token", s.token)
	}
	canonURI := canonicalPath(req)
	canonQuery := canonicalQuery(req.URL.Query())
	req.URL.RawQuery = canonQuery
	names, canonHeaders := canonicalHeaders(req)
	creq := strings.Join([]string{req.Method, canonURI, canonQuery, canonHeaders, names, payloadHash}, "\n")
	scope := s.scope(stamp)
	sig := s.signature(stamp, scope, creq)
	req.Header.Set("Authorization", sigAlgorithm+" Credential="+s.accessKey+"/"+scope+
		", SignedHeaders="+names+", Signature="+sig)
}

// presign returns the URL of req with query authorisation valid for ttl,
// signing only the host and an unsigned payload, as a browser following a
// redirect sends nothing else.
func (s signer) presign(req *http.Request, ttl time.Duration, now time.Time) string {
	stamp := now.UTC().Format(sigTimeFormat)
	scope := s.scope(stamp)
	q := req.URL.Query()
	q.Set("X-Amz-Algorithm", sigAlgorithm)
	q.Set("X-Amz-Credential", s.accessKey+"/"+scope)
	q.Set("X-Amz-Date", stamp)
	q.Set("X-Amz-Expires", strconv.Itoa(int(ttl/time.Second)))
	q.Set("X-Amz-SignedHeaders", "host")
	if s.token != "" {
		q.Set("X-Amz-Security-Token", s.token)
	}
	canonURI := canonicalPath(req)
	canonQuery := canonicalQuery(q)
	creq := strings.Join([]string{req.Method, canonURI, canonQuery, "host:" + requestHost(req) + "\n", "host", unsignedPayload}, "\n")
	sig := s.signature(stamp, scope, creq)
	u := *req.URL
	u.RawQuery = canonQuery + "&X-Amz-Signature=" + sig
	return u.String()
}

func (s signer) scope(stamp string) string {
	return stamp[:8] + "/" + s.region + "/" + s.service + "/aws4_request"
}

// signature is the hex HMAC of the string to sign under the derived key.
func (s signer) signature(stamp, scope, canonicalRequest string) string {
	h := sha256.Sum256([]byte(canonicalRequest))
	sts := sigAlgorithm + "\n" + stamp + "\n" + scope + "\n" + hex.EncodeToString(h[:])
	return hex.EncodeToString(hmacSHA256(s.signingKey(stamp[:8]), sts))
}

// signingKey derives the day's key from the secret.
func (s signer) signingKey(date string) []byte {
	k := hmacSHA256([]byte("AWS4"+s.secretKey), date)
	k = hmacSHA256(k, s.region)
	k = hmacSHA256(k, s.service)
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// canonicalPath escapes the path once, every byte but the unreserved ones
// and '/', as S3 wants (it neither normalises nor double-escapes), and
// makes the URL send that same escaping.
func canonicalPath(req *http.Request) string {
	p := req.URL.Path
	if p == "" {
		p = "/"
	}
	esc := sigEscape(p, false)
	req.URL.RawPath = esc
	return esc
}

// canonicalQuery sorts the pairs by name, then value, escaped.
func canonicalQuery(q url.Values) string {
	type pair struct{ k, v string }
	var ps []pair
	for k, vs := range q {
		for _, v := range vs {
			ps = append(ps, pair{sigEscape(k, true), sigEscape(v, true)})
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].k != ps[j].k {
			return ps[i].k < ps[j].k
		}
		return ps[i].v < ps[j].v
	})
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k + "=" + p.v)
	}
	return b.String()
}

// canonicalHeaders gives the signed-header list and the canonical header
// block: names lower-cased and sorted, values trimmed with inner runs of
// spaces collapsed, repeated headers joined by commas in their order.
func canonicalHeaders(req *http.Request) (names, block string) {
	vals := map[string][]string{"host": {requestHost(req)}}
	for k, vs := range req.Header {
		lk := strings.ToLower(k)
		for _, v := range vs {
			vals[lk] = append(vals[lk], strings.Join(strings.Fields(v), " "))
		}
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ":" + strings.Join(vals[k], ",") + "\n")
	}
	return strings.Join(keys, ";"), b.String()
}

func requestHost(req *http.Request) string {
	if req.Host != "" {
		return req.Host
	}
	return req.URL.Host
}

// sigEscape is SigV4's URI encoding: unreserved bytes stay, everything
// else is %XX in upper case; '/' stays too unless it is in a query part.
func sigEscape(s string, query bool) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/' && !query:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		}
	}
	return b.String()
}
