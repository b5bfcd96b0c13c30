package sqlstore

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewID returns a new UUID version 7 (RFC 9562) as a lower-case string.
//
// The 12-bit rand_a field holds the sub-millisecond fraction of the clock
// (RFC 9562 §6.2, method 3), so ids made one after another sort by time to
// about a quarter of a microsecond without any shared counter; the remaining
// 62 bits are random.
func NewID() string { return newIDAt(time.Now()) }

func newIDAt(t time.Time) string {
	var u [16]byte
	ms := uint64(t.UnixMilli())
	frac := uint64(t.Nanosecond()%1_000_000) * 4096 / 1_000_000
	u[0] = byte(ms >> 40)
	u[1] = byte(ms >> 32)
	u[2] = byte(ms >> 24)
	u[3] = byte(ms >> 16)
	u[4] = byte(ms >> 8)
	u[5] = byte(ms)
	u[6] = 0x70 | byte(frac>>8) // version 7
	u[7] = byte(frac)
	_, _ = rand.Read(u[8:]) // crypto/rand.Read never fails on supported platforms
	u[8] = 0x80 | u[8]&0x3f // variant 10
	return format(u)
}

func format(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// ValidID reports whether s is a UUID in canonical lower-case 8-4-4-4-12 hex
// form (any version). Ids are checked before they reach a query, so a
// malformed id is a plain "not found" on both databases rather than a
// PostgreSQL type error. Upper case is refused because SQLite compares ids as
// text: callers taking ids from clients lower-case them first (httpx.PathID).
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
