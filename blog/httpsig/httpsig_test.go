package httpsig

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	postRequired = []string{"(request-target)", "host", "date", "digest"}
	getRequired  = []string{"(request-target)", "host", "date"}
)

func TestSignedRequestsVerifyOverHTTP(t *testing.T) {
	key := testKey(t, "key-a.pem")
	signer := Signer{KeyID: "https://blog.example/ap/actor#main-key", Key: key}
	body := []byte(`{"type":"Create"}`)
	tests := []struct {
		name     string
		method   string
		body     []byte
		required []string
		headers  string
	}{
		{"a POST with its body", http.MethodPost, body, postRequired, "(request-target) host date digest"},
		{"a POST with an empty body", http.MethodPost, []byte{}, postRequired, "(request-target) host date digest"},
		{"a GET without body", http.MethodGet, nil, getRequired, "(request-target) host date"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url, results := inbox{pub: &key.PublicKey, required: tc.required, now: time.Now()}.serve(t)
			r, err := http.NewRequest(tc.method, url+"/ap/inbox?page=2&x=%2F", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := signer.Sign(r, tc.body); err != nil {
				t.Fatal(err)
			}
			got := send(t, r, tc.body, results)
			if got.err != nil {
				t.Fatalf("the inbox refused the request: %v", got.err)
			}
			if got.sig.KeyID != signer.KeyID || got.sig.Algorithm != "rsa-sha256" || strings.Join(got.sig.Headers, " ") != tc.headers {
				t.Errorf("signature read as %+v", got.sig)
			}
			if (r.Header.Get("Digest") != "") != (tc.body != nil) {
				t.Errorf("Digest %q for body %v", r.Header.Get("Digest"), tc.body)
			}
		})
	}
}

func TestTamperedRequestsAreRefused(t *testing.T) {
	key := testKey(t, "key-a.pem")
	other := testKey(t, "key-b.pem")
	signer := Signer{KeyID: "https://blog.example/ap/actor#main-key", Key: key}
	body := []byte(`{"type":"Follow"}`)
	tests := []struct {
		name     string
		verifyBy *Signer
		change   func(r *http.Request, body []byte) []byte
		required []string
		want     error
	}{
		{name: "a changed body", change: func(r *http.Request, body []byte) []byte {
			return []byte(`{"type":"Block"}`)
		}, want: ErrDigestMismatch},
		{name: "a changed Digest to match a changed body", change: func(r *http.Request, body []byte) []byte {
			b := []byte(`{"type":"Block"}`)
			r.Header.Set("Digest", Digest(b))
			return b
		}, want: ErrBadSignature},
		{name: "a changed Date", change: func(r *http.Request, body []byte) []byte {
			r.Header.Set("Date", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
			return body
		}, want: ErrBadSignature},
		{name: "a changed path", change: func(r *http.Request, body []byte) []byte {
			r.URL.Path = "/ap/other"
			return body
		}, want: ErrBadSignature},
		{name: "a removed Digest", change: func(r *http.Request, body []byte) []byte {
			r.Header.Del("Digest")
			return body
		}, want: ErrMissingHeader},
		{name: "a signature by another key", verifyBy: &Signer{Key: other}, want: ErrBadSignature},
		{name: "a required header left out of the signature", required: []string{"(request-target)", "host", "date", "digest", "content-type"}, want: ErrMissingHeader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pub := &key.PublicKey
			if tc.verifyBy != nil {
				pub = &tc.verifyBy.Key.PublicKey
			}
			required := postRequired
			if tc.required != nil {
				required = tc.required
			}
			url, results := inbox{pub: pub, required: required, now: time.Now()}.serve(t)
			r, _ := http.NewRequest(http.MethodPost, url+"/ap/inbox", nil)
			if err := signer.Sign(r, body); err != nil {
				t.Fatal(err)
			}
			sent := body
			if tc.change != nil {
				sent = tc.change(r, body)
			}
			got := send(t, r, sent, results)
			if !errors.Is(got.err, tc.want) {
				t.Errorf("got %v, want %v", got.err, tc.want)
			}
		})
	}
}

func TestCheckDateRefusesStaleAndFutureDates(t *testing.T) {
	now := fixedNow
	tests := []struct {
		name string
		date string
		want error
	}{
		{"now", now.Format(http.TimeFormat), nil},
		{"eleven hours ago", now.Add(-11 * time.Hour).Format(http.TimeFormat), nil},
		{"eleven hours ahead", now.Add(11 * time.Hour).Format(http.TimeFormat), nil},
		{"thirteen hours ago", now.Add(-13 * time.Hour).Format(http.TimeFormat), ErrStale},
		{"thirteen hours ahead", now.Add(13 * time.Hour).Format(http.TimeFormat), ErrStale},
		{"an RFC 850 date", now.Format(time.RFC850), nil},
		{"no date", "", ErrNoDate},
		{"not a date", "yesterday", ErrNoDate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.date != "" {
				h.Set("Date", tc.date)
			}
			err := CheckDate(h, now, 12*time.Hour)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("CheckDate(%q) = %v, want %v", tc.date, err, tc.want)
			}
		})
	}
}

func TestCheckDigest(t *testing.T) {
	body := []byte("hello")
	// SHA-256 and SHA-512 of "hello", computed apart from the package.
	const (
		sha256Hello = "SHA-256=LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="
		sha512Hello = "SHA-512=m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw=="
	)
	tests := []struct {
		name    string
		headers []string
		want    error
	}{
		{"SHA-256", []string{sha256Hello}, nil},
		{"the package's own digest", []string{Digest(body)}, nil},
		{"lowercased algorithm", []string{strings.Replace(sha256Hello, "SHA-256", "sha-256", 1)}, nil},
		{"SHA-256 and SHA-512 in one header", []string{sha256Hello + ", " + sha512Hello}, nil},
		{"SHA-512 first, in two headers", []string{sha512Hello, sha256Hello}, nil},
		{"an unknown algorithm beside", []string{"MD5=XUFAKrxLKna5cZ2REBfFkg==," + sha256Hello}, nil},
		{"no Digest", nil, ErrNoDigest},
		{"SHA-512 alone", []string{sha512Hello}, ErrNoDigest},
		{"another body's SHA-256", []string{Digest([]byte("hullo"))}, ErrDigestMismatch},
		{"a wrong SHA-512 beside a right SHA-256", []string{sha256Hello + "," + strings.Replace(sha512Hello, "m3H", "m3I", 1)}, ErrDigestMismatch},
		{"not base64", []string{"SHA-256=!!!"}, ErrDigestMismatch},
		{"no value", []string{"SHA-256"}, ErrNoDigest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.headers {
				h.Add("Digest", v)
			}
			err := CheckDigest(h, body)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("CheckDigest(%q) = %v, want %v", tc.headers, err, tc.want)
			}
		})
	}
}

// TestSignMatchesAKnownAnswer holds the signer to signatures computed
// apart from it, with openssl over the signing strings written by hand:
//
//	openssl dgst -sha256 -binary testdata/follow.json | base64
//	openssl dgst -sha256 -sign testdata/key-a.pem signing-string.txt | base64
func TestSignMatchesAKnownAnswer(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "follow.json"))
	if err != nil {
		t.Fatal(err)
	}
	signer := Signer{KeyID: "https://blog.example/ap/actor#main-key", Key: testKey(t, "key-a.pem"), Now: func() time.Time { return fixedNow.In(time.FixedZone("CEST", 2*3600)) }}
	tests := []struct {
		name, method, url string
		body              []byte
		date, digest      string
		signature         string
	}{
		{
			name: "a POST", method: http.MethodPost, url: "https://remote.example/users/bob/inbox", body: body,
			date:      "Tue, 07 Jun 2022 20:51:35 GMT",
			digest:    "SHA-256=eHbvzKd4xzqZLpQ6mQsQF3iF37//2x2S3UupRiwA02Q=",
			signature: `keyId="https://blog.example/ap/actor#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="HJoX6YQXyVG3XDkDgL4lGfwIpe21iysV+IOoaR1LTsrqoU2a81pcRACeM0iHOAXEukwcRPsSaOc02E1rpksBKr+7tRmCQACcL3U50qBI0O9V9InT4yPCTpEpRejg4Bg61j4nS+BDcsPhqvc4QXc264ovgXINUQrqp9uUfxjm0Edc5ZwlUjvjs1Wzyun3QiZH9VWbZ1xmL2YYvTg2zsxca3W8RsHhpPDxXmzGUuvV9PCpWsEOtYZW5vF8JbvgfthS4JAqPcNV9Ra9McwQOlxho+Imhn9hbWNheAhTrppfY2zxP+atW9AQjV/atTcqn5dEJfGjATkZvtqOYCCpjhj4wg=="`,
		},
		{
			name: "a GET", method: http.MethodGet, url: "https://remote.example/users/bob",
			date:      "Tue, 07 Jun 2022 20:51:35 GMT",
			signature: `keyId="https://blog.example/ap/actor#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="KGww6UQl6YvmGhLXox5isvcoeLycxOeFZq6cL+Jjvd3nGFoqGX3BAC8Cwlzyj53y7b0CCcVEmyQjoYtfM62GGXCeoVYKpWSextYMMpsr6IqRcIWx/Bc2TdBMmFbsfCjgORcfZWKcCpmYnSKMwnomRYecykjsGAm1rkrLfRuEaFqeGxLLudRi/JGX/CyRbZA5M4396VDuesOpBsqjcLDz3pTLH83zYtMmO+boQoao3w8+X7huLifL5EJA8MeNgzxCnMwqIssyU0KOi6w1TZLgzWaPsnpfd/OmVQK2p4tGUn2l6za/CxUtka5tTHuD4oAZb1EkGwRmf8noWecOn+NPpg=="`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := http.NewRequest(tc.method, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := signer.Sign(r, tc.body); err != nil {
				t.Fatal(err)
			}
			if got := r.Header.Get("Date"); got != tc.date {
				t.Errorf("Date %q, want %q", got, tc.date)
			}
			if got := r.Header.Get("Digest"); got != tc.digest {
				t.Errorf("Digest %q, want %q", got, tc.digest)
			}
			if got := r.Header.Get("Signature"); got != tc.signature {
				t.Errorf("Signature\n%s\nwant\n%s", got, tc.signature)
			}
			if r.Host != "remote.example" {
				t.Errorf("Host %q", r.Host)
			}
		})
	}
}

// TestOtherServersSignaturesVerify sends requests signed in the shapes
// other fediverse servers use, built by hand, through a real server.
func TestOtherServersSignaturesVerify(t *testing.T) {
	key := testKey(t, "key-b.pem")
	body := []byte(`{"type":"Like","actor":"https://remote.example/users/bob"}`)
	date := time.Now().UTC().Format(http.TimeFormat)
	tests := []struct {
		name      string
		header    string // Signature or Authorization
		prefix    string
		algorithm string
		headers   string
		created   int64
		extra     map[string]string
		required  []string
	}{
		{name: "Mastodon", header: "Signature", algorithm: "rsa-sha256", headers: "(request-target) host date digest content-type",
			extra: map[string]string{"Content-Type": "application/activity+json"}, required: postRequired},
		{name: "GoToSocial, hs2019", header: "Signature", algorithm: "hs2019", headers: "(request-target) host date digest", required: postRequired},
		{name: "Misskey's order", header: "Signature", algorithm: "rsa-sha256", headers: "(request-target) date host digest", required: postRequired},
		{name: "accept and content-type signed too", header: "Signature", algorithm: "rsa-sha256", headers: "(request-target) accept content-type date digest host",
			extra: map[string]string{"Content-Type": `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, "Accept": "application/activity+json"}, required: postRequired},
		{name: "the Authorization header", header: "Authorization", prefix: "Signature ", algorithm: "rsa-sha256", headers: "(request-target) host date digest", required: postRequired},
		{name: "no algorithm", header: "Signature", headers: "(request-target) host date digest", required: postRequired},
		{name: "created instead of date", header: "Signature", algorithm: "hs2019", headers: "(request-target) (created) host digest", created: time.Now().Unix(),
			required: []string{"(request-target)", "host", "digest"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url, results := inbox{pub: &key.PublicKey, required: tc.required, now: time.Now()}.serve(t)
			r, _ := http.NewRequest(http.MethodPost, url+"/users/alice/inbox", nil)
			r.Header.Set("Date", date)
			r.Header.Set("Digest", Digest(body))
			for k, v := range tc.extra {
				r.Header.Set(k, v)
			}
			var lines []string
			for _, name := range strings.Fields(tc.headers) {
				switch name {
				case "(request-target)":
					lines = append(lines, "(request-target): post /users/alice/inbox")
				case "(created)":
					lines = append(lines, "(created): "+strconv.FormatInt(tc.created, 10))
				case "host":
					lines = append(lines, "host: "+r.URL.Host)
				default:
					lines = append(lines, name+": "+r.Header.Get(name))
				}
			}
			params := `keyId="https://remote.example/users/bob#main-key",`
			if tc.algorithm != "" {
				params += `algorithm="` + tc.algorithm + `",`
			}
			if tc.created != 0 {
				params += "created=" + strconv.FormatInt(tc.created, 10) + ","
			}
			params += `headers="` + tc.headers + `",signature="` + signRaw(t, key, strings.Join(lines, "\n")) + `"`
			r.Header.Set(tc.header, tc.prefix+params)
			got := send(t, r, body, results)
			if got.err != nil {
				t.Fatalf("refused: %v", got.err)
			}
			if got.sig.KeyID != "https://remote.example/users/bob#main-key" {
				t.Errorf("key id %q", got.sig.KeyID)
			}
		})
	}
}

func TestVerifyRefusesOtherAlgorithmsAndKeys(t *testing.T) {
	key := testKey(t, "key-a.pem")
	r, _ := http.NewRequest(http.MethodGet, "https://remote.example/users/bob", nil)
	if err := (Signer{KeyID: "k", Key: key}).Sign(r, nil); err != nil {
		t.Fatal(err)
	}
	sig, err := Parse(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{"rsa-sha512", "ed25519", "hmac-sha256", "ecdsa-sha256"} {
		s := *sig
		s.Algorithm = alg
		if err := s.Verify(r, &key.PublicKey, getRequired); !errors.Is(err, ErrAlgorithm) {
			t.Errorf("algorithm %s: %v, want ErrAlgorithm", alg, err)
		}
	}
	ecPEM, _ := os.ReadFile(filepath.Join("testdata", "key-ec.pub.pem"))
	if _, err := ParsePublicKey(string(ecPEM)); err == nil {
		t.Error("ParsePublicKey accepted an EC key")
	}
	for _, pub := range []any{nil, key, "key", (*struct{})(nil)} {
		if err := sig.Verify(r, pub, getRequired); !errors.Is(err, ErrAlgorithm) {
			t.Errorf("key %T: %v, want ErrAlgorithm", pub, err)
		}
	}
	if err := sig.Verify(r, &key.PublicKey, getRequired); err != nil {
		t.Errorf("the untouched signature: %v", err)
	}
}

func TestSignRefusesWhatItCannotSign(t *testing.T) {
	key := testKey(t, "key-a.pem")
	r, _ := http.NewRequest(http.MethodGet, "https://remote.example/", nil)
	for name, s := range map[string]Signer{
		"no key":          {KeyID: "https://blog.example/ap/actor#main-key"},
		"no key id":       {Key: key},
		"a quote in id":   {KeyID: `https://blog.example/"`, Key: key},
		"a newline in id": {KeyID: "https://blog.example/\n", Key: key},
	} {
		if err := s.Sign(r, nil); err == nil {
			t.Errorf("%s: signed", name)
		}
	}
	noHost := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/"}, Header: http.Header{}}
	if err := (Signer{KeyID: "k", Key: key}).Sign(noHost, nil); err == nil {
		t.Error("signed a request without host")
	}
}
