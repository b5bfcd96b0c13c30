package authtest

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// Variant is a signed value changed so that it is no longer exactly what
// the signer wrote.
type Variant struct {
	Name, Value string
	// Header is false when the value cannot travel in an HTTP header (a
	// CR or LF): clients refuse to send it, so only a body, a query string
	// or a direct call can carry it.
	Header bool
}

// urlAlphabet is the base64url alphabet in value order.
const urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// MACVariants returns value with its MAC (the text after the last '.', or
// the whole value) changed in every way that the one parser must refuse
// (docs/design.md#identity): whitespace inside, '=' padding, other unused
// low bits in the last character, standard-alphabet characters, one
// character fewer or more. The MAC must be the 43 characters of 32 bytes.
// The variants that Go's lenient decoder reads as the MAC's own bytes are
// checked to be so, or the test fails: otherwise refusing them would prove
// nothing.
func MACVariants(t testing.TB, value string) []Variant {
	t.Helper()
	head, mac := "", value
	if i := strings.LastIndexByte(value, '.'); i >= 0 {
		head, mac = value[:i+1], value[i+1:]
	}
	want, err := base64.RawURLEncoding.Strict().DecodeString(mac)
	if len(mac) != 43 || err != nil || len(want) != 32 {
		t.Fatalf("MACVariants: %q does not end in the base64url of 32 bytes", value)
	}
	// The last character holds 4 bits of the last byte and 2 unused bits.
	last := strings.IndexByte(urlAlphabet, mac[42])
	lowBits := func(x int) string { return mac[:42] + string(urlAlphabet[last^x]) }
	std := strings.NewReplacer("-", "+", "_", "/").Replace(mac)
	stdSame := std != mac // the standard alphabet's spelling of the same bytes
	if !stdSame {
		std = "+" + mac[1:42] + "/"
	}

	lenient := []Variant{
		{"newline inside", mac[:20] + "\n" + mac[20:], false},
		{"CR inside", mac[:20] + "\r" + mac[20:], false},
		{"CRLF after", mac + "\r\n", false},
		{"unused low bits 01", lowBits(1), true},
		{"unused low bits 10", lowBits(2), true},
		{"unused low bits 11", lowBits(3), true},
	}
	for _, v := range lenient {
		got, err := base64.RawURLEncoding.DecodeString(v.Value)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("MACVariants: the lenient decoder does not read %q (%s) as the MAC's bytes (%v)", v.Value, v.Name, err)
		}
	}
	if stdSame {
		got, err := base64.RawStdEncoding.DecodeString(std)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("MACVariants: %q is not the standard spelling of the MAC (%v)", std, err)
		}
	}
	all := append(lenient,
		Variant{"space inside", mac[:20] + " " + mac[20:], true},
		Variant{"tab inside", mac[:20] + "\t" + mac[20:], true},
		Variant{"padding", mac + "=", true},
		Variant{"two paddings", mac + "==", true},
		Variant{"standard alphabet", std, true},
		Variant{"truncated", mac[:42], true},
		Variant{"truncated to a group", mac[:40], true},
		Variant{"extended", mac + "A", true},
		Variant{"extended by a group", mac + "AAAA", true},
		Variant{"empty", "", true},
	)
	for i := range all {
		all[i].Value = head + all[i].Value
	}
	return all
}
