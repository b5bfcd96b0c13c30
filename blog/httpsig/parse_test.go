package httpsig

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseReadsSignatureHeaders(t *testing.T) {
	tests := []struct {
		name   string
		header string
		value  string
		want   Signature
	}{
		{"Mastodon's", "Signature", `keyId="https://remote.example/users/bob#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="AQID"`,
			Signature{KeyID: "https://remote.example/users/bob#main-key", Algorithm: "rsa-sha256", Headers: []string{"(request-target)", "host", "date", "digest", "content-type"}, Signature: []byte{1, 2, 3}}},
		{"spaces after commas and around =", "Signature", `keyId = "k" , algorithm="hs2019",  headers="(request-target)  Host DATE", signature="AQID"`,
			Signature{KeyID: "k", Algorithm: "hs2019", Headers: []string{"(request-target)", "host", "date"}, Signature: []byte{1, 2, 3}}},
		{"no headers: date alone", "Signature", `keyId="k",signature="AQID"`,
			Signature{KeyID: "k", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"parameter names in any case, algorithm lowercased", "Signature", `KEYID="k",Algorithm="RSA-SHA256",Signature="AQID"`,
			Signature{KeyID: "k", Algorithm: "rsa-sha256", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"created and expires as numbers", "Signature", `keyId="k",created=1402170695,expires="1402170699",headers="(created) (expires)",signature="AQID"`,
			Signature{KeyID: "k", Headers: []string{"(created)", "(expires)"}, Signature: []byte{1, 2, 3}, Created: 1402170695, Expires: 1402170699}},
		{"escapes in a quoted string", "Signature", `keyId="a\"b\\c\d",signature="AQID"`,
			Signature{KeyID: `a"b\cd`, Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"a comma inside quotes", "Signature", `keyId="a,b",signature="AQID",opaque="x,y"`,
			Signature{KeyID: "a,b", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"unknown parameters ignored", "Signature", `keyId="k",signature="AQID",opaque="x",ext=1`,
			Signature{KeyID: "k", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"the Authorization header", "Authorization", `Signature keyId="k",signature="AQID"`,
			Signature{KeyID: "k", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
		{"the Authorization scheme in lower case", "Authorization", `signature keyId="k",signature="AQID"`,
			Signature{KeyID: "k", Headers: []string{"date"}, Signature: []byte{1, 2, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Set(tc.header, tc.value)
			got, err := Parse(h)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tc.want)
			}
			again, err := Parse(http.Header{"Signature": {got.String()}})
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("String() %q reads back as %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseRefusesMalformedHeaders(t *testing.T) {
	tests := []struct {
		name, value string
	}{
		{"no keyId", `algorithm="rsa-sha256",signature="AQID"`},
		{"an empty keyId", `keyId="",signature="AQID"`},
		{"no signature", `keyId="k",headers="date"`},
		{"an empty signature", `keyId="k",signature=""`},
		{"a signature not base64", `keyId="k",signature="not base64!"`},
		{"unpadded base64", `keyId="k",signature="AQI"`},
		{"a parameter twice", `keyId="k",keyId="j",signature="AQID"`},
		{"a parameter twice in other cases", `keyId="k",KEYID="k",signature="AQID"`},
		{"an unclosed quote", `keyId="k,signature="AQID`},
		{"a trailing backslash", `keyId="k",signature="AQID\`},
		{"a parameter without value", `keyId="k",signature="AQID",headers`},
		{"text after a quoted value", `keyId="k"x,signature="AQID"`},
		{"an empty headers list", `keyId="k",headers=" ",signature="AQID"`},
		{"created not a number", `keyId="k",created="soon",signature="AQID"`},
		{"expires negative", `keyId="k",expires=-5,signature="AQID"`},
		{"created beyond int64", `keyId="k",created=99999999999999999999,signature="AQID"`},
		{"bare words", `hello world`},
		{"a lone equals sign", `=`},
		{"a huge header", `keyId="` + strings.Repeat("k", MaxHeaderLen) + `",signature="AQID"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(http.Header{"Signature": {tc.value}})
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse(%.80q) = %+v, %v; want ErrMalformed", tc.value, got, err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Reason == "" {
				t.Errorf("%v is not a *FormatError with a reason", err)
			}
		})
	}
}

func TestParseWithoutSignature(t *testing.T) {
	for name, h := range map[string]http.Header{
		"no header":                  {},
		"a Bearer token":             {"Authorization": {"Bearer abc"}},
		"an empty Signature header":  {"Signature": {""}},
		"the scheme alone":           {"Authorization": {"Signature"}},
		"a Basic header":             {"Authorization": {"Basic dXNlcjpwYXNz"}},
		"a scheme that starts alike": {"Authorization": {"Signatures keyId=\"k\",signature=\"AQID\""}},
	} {
		if _, err := Parse(h); !errors.Is(err, ErrNoSignature) && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		} else if name != "the scheme alone" && !errors.Is(err, ErrNoSignature) {
			t.Errorf("%s: %v, want ErrNoSignature", name, err)
		}
	}
}

func TestSigningString(t *testing.T) {
	r, _ := http.NewRequest(http.MethodPost, "https://remote.example/inbox/a%20b?x=1&y=%2F", nil)
	r.Host = "remote.example:8443"
	r.Header.Set("Date", "Tue, 07 Jun 2022 20:51:35 GMT")
	r.Header.Add("Cache-Control", "max-age=60")
	r.Header.Add("Cache-Control", " must-revalidate ")
	r.Header.Set("X-Empty", "")
	sig := &Signature{KeyID: "k", Created: 1402170695, Expires: 1402170699,
		Headers: []string{"(request-target)", "(created)", "(expires)", "host", "date", "cache-control", "x-empty"}}
	got, err := sig.SigningString(r)
	if err != nil {
		t.Fatal(err)
	}
	want := "(request-target): post /inbox/a%20b?x=1&y=%2F\n(created): 1402170695\n(expires): 1402170699\nhost: remote.example:8443\n" +
		"date: Tue, 07 Jun 2022 20:51:35 GMT\ncache-control: max-age=60, must-revalidate\nx-empty: "
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	r.Host = ""
	if got, _ := (&Signature{Headers: []string{"host"}}).SigningString(r); got != "host: remote.example" {
		t.Errorf("host without r.Host: %q", got)
	}
	for _, headers := range [][]string{{"digest"}, {"(created)"}, {"(expires)"}} {
		if _, err := (&Signature{Headers: headers}).SigningString(r); !errors.Is(err, ErrMissingHeader) {
			t.Errorf("%v: %v, want ErrMissingHeader", headers, err)
		}
	}
}

func TestKeysReadBackInEveryForm(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	key := testKey(t, "key-a.pem")
	pkcs1, err := ParsePrivateKey(read("key-a.pkcs1.pem"))
	if err != nil || !pkcs1.Equal(key) {
		t.Errorf("PKCS #1 private key: %v", err)
	}
	again, err := ParsePrivateKey(MarshalPrivateKey(key))
	if err != nil || !again.Equal(key) {
		t.Errorf("MarshalPrivateKey does not read back: %v", err)
	}
	if !strings.HasPrefix(MarshalPrivateKey(key), "-----BEGIN PRIVATE KEY-----\n") {
		t.Errorf("private key PEM %.40q", MarshalPrivateKey(key))
	}
	pub := MarshalPublicKey(&key.PublicKey)
	if !strings.HasPrefix(pub, "-----BEGIN PUBLIC KEY-----\n") {
		t.Errorf("public key PEM %.40q", pub)
	}
	for name, text := range map[string]string{
		"PKIX":                      pub,
		"PKIX with CRLF and indent": "  " + strings.ReplaceAll(pub, "\n", "\r\n"),
		"PKCS #1":                   read("key-a.pkcs1.pub.pem"),
	} {
		got, err := ParsePublicKey(text)
		if err != nil || !got.Equal(&key.PublicKey) {
			t.Errorf("%s public key: %v", name, err)
		}
	}
	for name, text := range map[string]string{
		"empty":              "",
		"garbage":            "hello",
		"an EC key":          read("key-ec.pub.pem"),
		"a broken PEM body":  "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
		"a certificate type": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
	} {
		if _, err := ParsePublicKey(text); err == nil {
			t.Errorf("ParsePublicKey accepted %s", name)
		}
	}
	for name, text := range map[string]string{
		"empty":        "",
		"an EC key":    read("key-ec.pem"),
		"a public key": pub,
	} {
		if _, err := ParsePrivateKey(text); err == nil {
			t.Errorf("ParsePrivateKey accepted %s", name)
		}
	}
}

// TestGenerateKeySignsAndVerifies is the one test that makes a key: 2048
// bits, and usable at once.
func TestGenerateKeySignsAndVerifies(t *testing.T) {
	key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if key.N.BitLen() != 2048 {
		t.Errorf("%d bits", key.N.BitLen())
	}
	pub, err := ParsePublicKey(MarshalPublicKey(&key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodPost, "https://remote.example/inbox", nil)
	if err := (Signer{KeyID: "k", Key: key}).Sign(r, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	sig, err := Parse(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	if err := sig.Verify(r, pub, postRequired); err != nil {
		t.Error(err)
	}
}
