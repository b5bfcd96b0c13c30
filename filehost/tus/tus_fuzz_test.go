package tus

import (
	"encoding/base64"
	"errors"
	"maps"
	"testing"
)

// FuzzParseMetadata: any header either fails or gives at most
// MaxMetadataPairs valid keys, and what it gives encodes to a header that
// reads back the same.
func FuzzParseMetadata(f *testing.F) {
	for _, s := range []string{"", "filename YS5wbmc=", "a,b YQ==,c", " x YQ== , y", "a  YQ==", "k ====", "é YQ=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		md, err := ParseMetadata(h)
		if err != nil {
			if md != nil {
				t.Fatalf("both a result and an error: %v, %v", md, err)
			}
			return
		}
		if len(md) > MaxMetadataPairs || len(h) > MaxMetadataBytes {
			t.Fatalf("accepted beyond the bounds: %d pairs, %d bytes", len(md), len(h))
		}
		for k := range md {
			if !validKey(k) {
				t.Fatalf("invalid key %q accepted", k)
			}
		}
		back, err := ParseMetadata(EncodeMetadata(md))
		if err != nil || !maps.Equal(back, md) {
			t.Fatalf("re-encoded %q reads %v, %v; want %v", EncodeMetadata(md), back, err, md)
		}
	})
}

// FuzzParseChecksum: any header fails with ErrChecksum or ErrAlgorithm,
// or gives a served algorithm and a digest of its size that writes back
// to a header that reads back the same.
func FuzzParseChecksum(f *testing.F) {
	for _, s := range []string{"sha1 qvTGHdzF6KLavt4PO0gs2a6pQ00=", "md5 XUFAKrxLKna5cZ2REBfFkg==", "sha256 x", "md5", " md5  x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		c, err := ParseChecksum(h)
		if err != nil {
			if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrAlgorithm) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		newHash := Hasher(c.Algorithm)
		if newHash == nil || len(c.Sum) != newHash().Size() {
			t.Fatalf("accepted %q as %+v", h, c)
		}
		back, err := ParseChecksum(c.Algorithm + " " + base64.StdEncoding.EncodeToString(c.Sum))
		if err != nil || back.Algorithm != c.Algorithm || string(back.Sum) != string(c.Sum) {
			t.Fatalf("written back reads %+v, %v", back, err)
		}
	})
}
