package httpsig

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseSignature: any Signature or Authorization header text. Parse
// never panics and gives a signature or an error (ErrNoSignature or a
// *FormatError), never both; a signature has a key id, a signature and a
// non-empty headers list in ASCII lower case, and written back with String it
// reads back the same. SigningString and Verify on it never panic.
func FuzzParseSignature(f *testing.F) {
	f.Add(`keyId="https://remote.example/users/bob#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="AQID"`, false)
	f.Add(`keyId="k",algorithm="hs2019",created=1402170695,expires=1402170699,headers="(request-target) (created) (expires) host",signature="AQID"`, false)
	f.Add(`Signature keyId="a\"b",signature="AQID"`, true)
	f.Add(`keyId="k",signature="AQID",keyId="j"`, false)
	f.Add(`keyId="k,signature=`, false)
	key := testKey(f, "key-a.pem")
	f.Fuzz(func(t *testing.T, value string, authorization bool) {
		h := http.Header{}
		if authorization {
			h.Set("Authorization", value)
		} else {
			h.Set("Signature", value)
		}
		sig, err := Parse(h)
		if (sig == nil) == (err == nil) {
			t.Fatalf("Parse gave %+v and %v", sig, err)
		}
		if err != nil {
			var fe *FormatError
			if !errors.Is(err, ErrNoSignature) && !errors.As(err, &fe) {
				t.Fatalf("error %v is neither ErrNoSignature nor a *FormatError", err)
			}
			return
		}
		if sig.KeyID == "" || len(sig.Signature) == 0 || len(sig.Headers) == 0 {
			t.Fatalf("incomplete signature %+v", sig)
		}
		for _, name := range sig.Headers {
			if name == "" || strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || strings.IndexFunc(name, unicode.IsSpace) >= 0 {
				t.Fatalf("header name %q", name)
			}
		}
		// Quoting a bare value adds two bytes, which may pass the bound.
		again, err := Parse(http.Header{"Signature": {sig.String()}})
		if len(sig.String()) <= MaxHeaderLen && (err != nil || !reflect.DeepEqual(again, sig)) {
			t.Fatalf("%+v written as %q reads back as %+v, %v", sig, sig.String(), again, err)
		}
		r, _ := http.NewRequest(http.MethodPost, "https://remote.example/inbox", nil)
		r.Header.Set("Date", "Tue, 07 Jun 2022 20:51:35 GMT")
		r.Header.Set("Digest", Digest(nil))
		if _, err := sig.SigningString(r); err != nil && !errors.Is(err, ErrMissingHeader) {
			t.Fatalf("SigningString: %v", err)
		}
		if err := sig.Verify(r, &key.PublicKey, nil); err == nil {
			t.Fatalf("a made-up signature verified: %+v", sig)
		}
	})
}
