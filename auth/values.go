package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"strconv"
	"strings"
	"time"
)

// Signed values are short-lived facts a domain hands to a browser and
// reads back without storing them (a share link's password cookie, its
// view tickets): "<payload>.<expiry unix>.<mac>". The MAC covers the
// purpose too, so a value made for one use is refused for any other.

// SignValue signs payload for purpose until exp. The payload must not
// contain a dot.
func (s *Service) SignValue(purpose, payload string, exp time.Time) string {
	msg := payload + "." + strconv.FormatInt(exp.Unix(), 10)
	return msg + "." + s.valueMAC(purpose, msg)
}

// VerifyValue returns the payload of a value SignValue made for purpose;
// ok is false for a value that is tampered with, expired, or made for
// another purpose.
func (s *Service) VerifyValue(purpose, value string) (payload string, ok bool) {
	msg, mac, found := cutLast(value, '.')
	if !found {
		return "", false
	}
	payload, expText, found := cutLast(msg, '.')
	if !found || payload == "" {
		return "", false
	}
	exp, err := strconv.ParseInt(expText, 10, 64)
	if err != nil || s.now().Unix() >= exp {
		return "", false
	}
	if !hmac.Equal([]byte(mac), []byte(s.valueMAC(purpose, msg))) {
		return "", false
	}
	return payload, true
}

func (s *Service) valueMAC(purpose, msg string) string {
	m := hmac.New(sha256.New, s.valueKey)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(msg))
	return b64.EncodeToString(m.Sum(nil))
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}
