package storage

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of a key (docs/filehost.md, "Storage keys and path_pattern"). A
// name of more than 255 bytes is refused by the common file systems, so a
// key with one could never be written; the depth and total length bound
// what one key may cost to create and keep every path well inside PATH_MAX.
const (
	MaxKeyLen   = 1024 // bytes in all
	MaxKeyDepth = 16   // names in a key: its folders and the file
	MaxNameLen  = 255  // bytes in one folder or file name
)

// KeyError says why a key is refused. It matches ErrInvalidKey.
type KeyError struct {
	Key string
	// Reason is a noun phrase, so that callers can say "a key with
	// <Reason>" or "would give keys with <Reason>".
	Reason string
}

func (e *KeyError) Error() string {
	k := e.Key
	if len(k) > 64 {
		k = strings.ToValidUTF8(k[:64], "") + "…"
	}
	return fmt.Sprintf("storage: invalid key %q: a key with %s", k, e.Reason)
}

func (e *KeyError) Unwrap() error { return ErrInvalidKey }

// CheckKey is the one rule for the keys content may be stored under: valid
// UTF-8 without control characters, relative and slash-separated, every
// name real ("", "." and ".." are not) and at most MaxNameLen bytes, at
// most MaxKeyDepth names and MaxKeyLen bytes, and not inside the store's
// own temporary folder. The error is a *KeyError.
//
// Which folders a caller keeps for itself (the file host's thumbs/) is the
// caller's rule on top of this one.
func CheckKey(key string) error {
	if err := checkPlace(key); err != nil {
		return err
	}
	bad := func(reason string) error { return &KeyError{Key: key, Reason: reason} }
	if !utf8.ValidString(key) {
		return bad("bytes that are not UTF-8")
	}
	if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return bad("a control character")
	}
	names := 0
	for seg := range strings.SplitSeq(key, "/") {
		if names++; names > MaxKeyDepth {
			return bad(fmt.Sprintf("more than %d names (folders and the file)", MaxKeyDepth))
		}
		if len(seg) > MaxNameLen {
			return bad(fmt.Sprintf("a folder or file name longer than %d bytes", MaxNameLen))
		}
	}
	return nil
}

// ValidKey reports whether CheckKey accepts key.
func ValidKey(key string) bool { return CheckKey(key) == nil }

// checkPlace is the part of CheckKey that keeps a key's path inside the
// root and outside the temporary folder. Reading and deleting need only
// this part, so content stored under a looser rule of an older version
// stays readable and deletable; only Commit applies the whole rule.
func checkPlace(key string) error {
	bad := func(reason string) error { return &KeyError{Key: key, Reason: reason} }
	switch {
	case key == "":
		return bad("no name at all")
	case len(key) > MaxKeyLen:
		return bad(fmt.Sprintf("more than %d bytes", MaxKeyLen))
	case strings.HasPrefix(key, "/"):
		return bad("a leading slash")
	case len(key) > 1 && key[1] == ':':
		return bad("a drive letter")
	case strings.ContainsRune(key, '\\'):
		return bad("a backslash")
	case strings.ContainsRune(key, 0):
		return bad("a control character")
	}
	first := true
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return bad(`an empty, "." or ".." name`)
		}
		// Folded: on a case-insensitive file system .TMP is the same folder.
		if first && strings.EqualFold(seg, tmpDir) {
			return bad("the store's own folder " + tmpDir + " as its first name")
		}
		first = false
	}
	return nil
}
