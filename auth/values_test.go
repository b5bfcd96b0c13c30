package auth_test

import (
	"strings"
	"testing"
	"time"
)

func TestSignedValuesAreBoundToPurposeAndTime(t *testing.T) {
	e := newEnv(t)
	s := e.svc
	v := s.SignValue("ticket", "share-1", e.clock.Now().Add(time.Minute))
	if got, ok := s.VerifyValue("ticket", v); !ok || got != "share-1" {
		t.Fatalf("VerifyValue = %q, %v", got, ok)
	}
	for name, value := range map[string]string{
		"tampered payload": strings.Replace(v, "share-1", "share-2", 1),
		"tampered expiry":  strings.Replace(v, ".", ".9", 1),
		"tampered mac":     v[:len(v)-2] + flip(v[len(v)-2:]),
		"no mac":           v[:strings.LastIndexByte(v, '.')],
		"empty":            "",
		"dots":             "..",
	} {
		if _, ok := s.VerifyValue("ticket", value); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, ok := s.VerifyValue("cookie", v); ok {
		t.Error("a value made for one purpose is accepted for another")
	}
	e.clock.Advance(time.Minute)
	if _, ok := s.VerifyValue("ticket", v); ok {
		t.Error("an expired value is accepted")
	}
}

// flip changes a two-character text into another one.
func flip(s string) string {
	if s == "AA" {
		return "BB"
	}
	return "AA"
}
