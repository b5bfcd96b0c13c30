package storage

import (
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The vectors are AWS's published SigV4 test suite (service "service") and
// the S3 documentation's examples; docs/testing.md#s3 says where they come
// from. Only the vectors whose paths need no normalisation are here: S3
// signs the path as sent, escaped once.
func TestSignerMatchesThePublishedVectors(t *testing.T) {
	suite := signer{accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "service"}
	at := time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC)
	unreserved := "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	type hdr struct{ k, v string }
	for _, tc := range []struct {
		name, method, path string
		query              [][2]string
		headers            []hdr
		body               string // signed as x-amz-content-sha256 when set
		token              string
		signedHeaders, sig string
	}{
		{name: "get-vanilla", method: "GET", path: "/", signedHeaders: "host;x-amz-date", sig: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
		{name: "get-vanilla-with-session-token", method: "GET", path: "/", token: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267",
			signedHeaders: "host;x-amz-date;x-amz-security-token", sig: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"},
		{name: "post-x-www-form-urlencoded", method: "POST", path: "/", body: "Param1=value1",
			headers:       []hdr{{"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Length", "13"}},
			signedHeaders: "content-length;content-type;host;x-amz-content-sha256;x-amz-date", sig: "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"},
		{name: "get-utf8", method: "GET", path: "/ሴ", signedHeaders: "host;x-amz-date", sig: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
		{name: "get-header-value-trim", method: "GET", path: "/", headers: []hdr{{"My-Header1", " value1"}, {"My-Header2", ` "a   b   c"`}},
			signedHeaders: "host;my-header1;my-header2;x-amz-date", sig: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
		{name: "get-vanilla-query-order-key-case", method: "GET", path: "/", query: [][2]string{{"Param2", "value2"}, {"Param1", "value1"}},
			signedHeaders: "host;x-amz-date", sig: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
		{name: "post-vanilla", method: "POST", path: "/", signedHeaders: "host;x-amz-date", sig: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
		{name: "get-unreserved", method: "GET", path: "/" + unreserved, signedHeaders: "host;x-amz-date", sig: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"},
		{name: "get-vanilla-utf8-query", method: "GET", path: "/", query: [][2]string{{"ሴ", "bar"}}, signedHeaders: "host;x-amz-date", sig: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
		{name: "get-vanilla-query-unreserved", method: "GET", path: "/", query: [][2]string{{unreserved, unreserved}}, signedHeaders: "host;x-amz-date", sig: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
		{name: "get-header-key-duplicate", method: "GET", path: "/", headers: []hdr{{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}},
			signedHeaders: "host;my-header1;x-amz-date", sig: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
		{name: "get-header-value-order", method: "GET", path: "/", headers: []hdr{{"My-Header1", "value4"}, {"My-Header1", "value1"}, {"My-Header1", "value3"}, {"My-Header1", "value2"}},
			signedHeaders: "host;my-header1;x-amz-date", sig: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"},
		{name: "post-header-key-sort", method: "POST", path: "/", headers: []hdr{{"My-Header1", "value1"}}, signedHeaders: "host;my-header1;x-amz-date", sig: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"},
		{name: "post-vanilla-query", method: "POST", path: "/", query: [][2]string{{"Param1", "value1"}}, signedHeaders: "host;x-amz-date", sig: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{}
			for _, p := range tc.query {
				q.Add(p[0], p[1])
			}
			req := &http.Request{Method: tc.method, Host: "example.amazonaws.com", Header: http.Header{},
				URL: &url.URL{Scheme: "https", Host: "example.amazonaws.com", Path: tc.path, RawQuery: q.Encode()}}
			for _, h := range tc.headers {
				req.Header.Add(h.k, h.v)
			}
			payload := emptySHA256
			if tc.body != "" {
				payload = hexSHA256([]byte(tc.body))
				req.Header.Set("X-Amz-Content-Sha256", payload)
			}
			s := suite
			s.token = tc.token
			s.sign(req, payload, at)
			want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=" +
				tc.signedHeaders + ", Signature=" + tc.sig
			if got := req.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestSigningKeyDerivationMatchesTheDocumentedExample(t *testing.T) {
	s := signer{secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "iam"}
	if got := hex.EncodeToString(s.signingKey("20120215")); got != "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d" {
		t.Fatalf("signing key %s", got)
	}
}

func TestSignerMatchesTheS3DocumentationExamples(t *testing.T) {
	s := signer{accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "s3"}
	at := time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
	newReq := func() *http.Request {
		return &http.Request{Method: "GET", Host: "examplebucket.s3.amazonaws.com", Header: http.Header{},
			URL: &url.URL{Scheme: "https", Host: "examplebucket.s3.amazonaws.com", Path: "/test.txt"}}
	}
	t.Run("GET object with a range", func(t *testing.T) {
		req := newReq()
		req.Header.Set("Range", "bytes=0-9")
		req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
		s.sign(req, emptySHA256, at)
		if got := req.Header.Get("Authorization"); !strings.HasSuffix(got, "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") {
			t.Fatalf("Authorization %s", got)
		}
	})
	t.Run("presigned GET", func(t *testing.T) {
		u, err := url.Parse(s.presign(newReq(), 86400*time.Second, at))
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Query().Get("X-Amz-Signature"); got != "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404" {
			t.Fatalf("signature %s in %s", got, u)
		}
	})
}

func TestSigEscapeKeepsSlashesOnlyInPaths(t *testing.T) {
	for _, tc := range []struct {
		in    string
		query bool
		want  string
	}{
		{"2026/11/a b+c.png", false, "2026/11/a%20b%2Bc.png"},
		{"a/b", true, "a%2Fb"},
		{"图", false, "%E5%9B%BE"},
		{"~x_y-z.1", false, "~x_y-z.1"},
	} {
		if got := sigEscape(tc.in, tc.query); got != tc.want {
			t.Errorf("sigEscape(%q, %v) = %q, want %q", tc.in, tc.query, got, tc.want)
		}
	}
}
