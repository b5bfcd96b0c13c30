package tus

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

func TestParseMetadataReadsPairsAndLoneKeys(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, header string
		want         map[string]string
	}{
		{"empty", "", map[string]string{}},
		{"one pair", "filename " + b64("a.png"), map[string]string{"filename": "a.png"}},
		{"pairs and a lone key", "filename " + b64("a b.png") + ",is_confidential,filetype " + b64("image/png"),
			map[string]string{"filename": "a b.png", "is_confidential": "", "filetype": "image/png"}},
		{"spaces around pairs", " filename " + b64("x") + " , visibility " + b64("public"),
			map[string]string{"filename": "x", "visibility": "public"}},
		{"empty value", "name ", map[string]string{"name": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMetadata(tt.header)
			if err != nil || !maps.Equal(got, tt.want) {
				t.Fatalf("ParseMetadata(%q) = %v, %v; want %v", tt.header, got, err, tt.want)
			}
		})
	}
}

func TestParseMetadataRefusesMalformedHeaders(t *testing.T) {
	tests := map[string]string{
		"not base64":       "filename a.png",
		"padding missing":  "filename YQ",
		"empty pair":       "filename YQ==,,visibility cHVibGlj",
		"repeated key":     "a YQ==,a Yg==",
		"control in key":   "fi\x01le YQ==",
		"two spaces":       "filename  YQ==",
		"too long":         "k " + strings.Repeat("A", MaxMetadataBytes),
		"too many pairs":   strings.Repeat("k,", MaxMetadataPairs) + "k",
		"key too long":     strings.Repeat("k", MaxKeyBytes+1),
		"non-ASCII key":    "fïle YQ==",
		"trailing garbage": "filename YQ== x",
	}
	for name, h := range tests {
		t.Run(name, func(t *testing.T) {
			if md, err := ParseMetadata(h); err == nil {
				t.Fatalf("ParseMetadata(%q) = %v, want an error", h, md)
			}
		})
	}
}

func TestEncodeMetadataReadsBack(t *testing.T) {
	md := map[string]string{"filename": "ä b,c.png", "flag": "", "filetype": "image/png"}
	h := EncodeMetadata(md)
	if h != "filename w6QgYixjLnBuZw==,filetype aW1hZ2UvcG5n,flag" {
		t.Fatalf("EncodeMetadata = %q", h)
	}
	got, err := ParseMetadata(h)
	if err != nil || !maps.Equal(got, md) {
		t.Fatalf("read back %v, %v", got, err)
	}
}

func TestParseChecksum(t *testing.T) {
	sha := sha1.Sum([]byte("hello"))
	sum5 := md5.Sum([]byte("hello"))
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name, header string
		algo         string
		err          error
	}{
		{"sha1", "sha1 " + b64(sha[:]), "sha1", nil},
		{"md5", "md5 " + b64(sum5[:]), "md5", nil},
		{"upper-case algorithm", "SHA1 " + b64(sha[:]), "sha1", nil},
		{"unsupported algorithm", "sha256 " + b64(sha[:]), "", ErrAlgorithm},
		{"wrong length", "md5 " + b64(sha[:]), "", ErrChecksum},
		{"no digest", "sha1", "", ErrChecksum},
		{"not base64", "sha1 !!!!", "", ErrChecksum},
		{"empty", "", "", ErrChecksum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseChecksum(tt.header)
			if !errors.Is(err, tt.err) || (err == nil && c.Algorithm != tt.algo) {
				t.Fatalf("ParseChecksum(%q) = %+v, %v; want %s, %v", tt.header, c, err, tt.algo, tt.err)
			}
		})
	}
}

func TestHasherServesOnlyTheAdvertisedAlgorithms(t *testing.T) {
	for _, a := range strings.Split(ChecksumAlgorithms, ",") {
		if Hasher(a) == nil {
			t.Errorf("no hasher for advertised %s", a)
		}
	}
	if Hasher("sha256") != nil || Hasher("crc32") != nil {
		t.Fatal("a hasher for an algorithm not advertised")
	}
}

func TestFormatExpiresIsAnHTTPDate(t *testing.T) {
	at := time.Date(2026, 11, 27, 20, 0, 0, 0, time.FixedZone("x", 3600))
	if got := FormatExpires(at); got != "Fri, 27 Nov 2026 19:00:00 GMT" {
		t.Fatalf("FormatExpires = %q", got)
	}
}

func TestSupportedIsOnlyTheVersionServed(t *testing.T) {
	if !Supported("1.0.0") || Supported("") || Supported("0.2.2") || Supported("1.0.0 ") {
		t.Fatal("Supported accepts the wrong versions")
	}
}
