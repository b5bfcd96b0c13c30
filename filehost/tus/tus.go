package tus

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"hash"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Version is the one protocol version served.
const Version = "1.0.0"

// Extensions lists the extensions served, as Tus-Extension says them.
const Extensions = "creation,creation-with-upload,termination,checksum,expiration"

// ChecksumAlgorithms lists the checksum algorithms served, as
// Tus-Checksum-Algorithm says them.
const ChecksumAlgorithms = "md5,sha1"

// ContentType is the media type of a body of upload bytes.
const ContentType = "application/offset+octet-stream"

// StatusChecksumMismatch answers a chunk whose Upload-Checksum does not
// match its bytes.
const StatusChecksumMismatch = 460

// The headers of the protocol.
const (
	HeaderResumable         = "Tus-Resumable"
	HeaderVersion           = "Tus-Version"
	HeaderExtension         = "Tus-Extension"
	HeaderMaxSize           = "Tus-Max-Size"
	HeaderChecksumAlgorithm = "Tus-Checksum-Algorithm"
	HeaderUploadOffset      = "Upload-Offset"
	HeaderUploadLength      = "Upload-Length"
	HeaderUploadDeferLength = "Upload-Defer-Length"
	HeaderUploadMetadata    = "Upload-Metadata"
	HeaderUploadChecksum    = "Upload-Checksum"
	HeaderUploadExpires     = "Upload-Expires"
	HeaderMethodOverride    = "X-HTTP-Method-Override"
)

// Limits on Upload-Metadata: a header of at most MaxMetadataBytes with at
// most MaxMetadataPairs pairs; each key at most MaxKeyBytes.
const (
	MaxMetadataBytes = 8 << 10
	MaxMetadataPairs = 32
	MaxKeyBytes      = 64
)

// Supported reports whether a request's Tus-Resumable value is the version
// served.
func Supported(v string) bool { return v == Version }

// ErrMetadata is a malformed Upload-Metadata header.
var ErrMetadata = errors.New("malformed Upload-Metadata")

// ParseMetadata reads an Upload-Metadata header: comma-separated pairs of
// a key and a standard-base64 value separated by one space, or a key
// alone (an empty value). Keys are printable ASCII without spaces or
// commas and appear once; values are any bytes. The empty header is no
// metadata.
func ParseMetadata(h string) (map[string]string, error) {
	md := map[string]string{}
	if strings.TrimSpace(h) == "" {
		return md, nil
	}
	if len(h) > MaxMetadataBytes {
		return nil, errors.New("Upload-Metadata is too long")
	}
	pairs := strings.Split(h, ",")
	if len(pairs) > MaxMetadataPairs {
		return nil, errors.New("Upload-Metadata has too many pairs")
	}
	for _, p := range pairs {
		p = strings.Trim(p, " \t")
		key, val, hasVal := strings.Cut(p, " ")
		if !validKey(key) {
			return nil, ErrMetadata
		}
		if _, dup := md[key]; dup {
			return nil, errors.New("Upload-Metadata repeats the key " + key)
		}
		if !hasVal {
			md[key] = ""
			continue
		}
		b, err := base64.StdEncoding.Strict().DecodeString(val)
		if err != nil {
			return nil, ErrMetadata
		}
		md[key] = string(b)
	}
	return md, nil
}

func validKey(k string) bool {
	if k == "" || len(k) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == ',' {
			return false
		}
	}
	return true
}

// EncodeMetadata writes metadata as an Upload-Metadata header, keys in
// order; an empty value is written as the key alone.
func EncodeMetadata(md map[string]string) string {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k
		if md[k] != "" {
			parts[i] += " " + base64.StdEncoding.EncodeToString([]byte(md[k]))
		}
	}
	return strings.Join(parts, ",")
}

// Checksum is a parsed Upload-Checksum: the algorithm and the digest.
type Checksum struct {
	Algorithm string
	Sum       []byte
}

// ErrChecksum is a malformed Upload-Checksum header.
var ErrChecksum = errors.New("malformed Upload-Checksum")

// ErrAlgorithm is an Upload-Checksum with an algorithm not served.
var ErrAlgorithm = errors.New("unsupported checksum algorithm")

// ParseChecksum reads an Upload-Checksum header, "algorithm base64": an
// algorithm not served is ErrAlgorithm, a digest of the wrong length or
// encoding ErrChecksum.
func ParseChecksum(h string) (Checksum, error) {
	algo, val, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || algo == "" || len(val) > 128 {
		return Checksum{}, ErrChecksum
	}
	algo = strings.ToLower(algo)
	newHash := Hasher(algo)
	if newHash == nil {
		return Checksum{}, ErrAlgorithm
	}
	sum, err := base64.StdEncoding.Strict().DecodeString(val)
	if err != nil || len(sum) != newHash().Size() {
		return Checksum{}, ErrChecksum
	}
	return Checksum{Algorithm: algo, Sum: sum}, nil
}

// Hasher returns the hash constructor of a served checksum algorithm, nil
// for any other.
func Hasher(algo string) func() hash.Hash {
	switch algo {
	case "sha1":
		return sha1.New
	case "md5":
		return md5.New
	}
	return nil
}

// FormatExpires writes t as Upload-Expires does: an HTTP date.
func FormatExpires(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
