package qr_test

import (
	"errors"
	"strings"
	"testing"

	"folio/auth/qr"
)

// capacityM is the standard's table of byte-mode capacities at level M, by
// version (index 0 unused): the most bytes each version holds.
var capacityM = [41]int{0,
	14, 26, 42, 62, 84, 106, 122, 152, 180, 213,
	251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
	711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370,
	1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331}

// FuzzEncode: any input up to MaxLen encodes, without a panic, into a
// square matrix of the smallest version that holds it, with its finder
// patterns in place, and draws as an SVG; a longer one is ErrTooLong.
func FuzzEncode(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("a"))
	f.Add([]byte("otpauth://totp/Folio:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Folio&algorithm=SHA1&digits=6&period=30"))
	f.Add(make([]byte, 213))
	f.Add([]byte(strings.Repeat("\xff\x00", 107)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := qr.Encode(data)
		if len(data) > qr.MaxLen {
			if !errors.Is(err, qr.ErrTooLong) || m != nil {
				t.Fatalf("%d bytes: %d rows, err %v; want ErrTooLong", len(data), len(m), err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%d bytes: %v", len(data), err)
		}
		v := 1
		for capacityM[v] < len(data) {
			v++
		}
		side := 4*v + 17
		if len(m) != side {
			t.Fatalf("%d bytes: %d rows, want %d (version %d)", len(data), len(m), side, v)
		}
		for y, row := range m {
			if len(row) != side {
				t.Fatalf("%d bytes: row %d has %d modules, want %d", len(data), y, len(row), side)
			}
		}
		// Each finder's centre and corner are dark, the ring between light.
		for _, c := range [][2]int{{3, 3}, {side - 4, 3}, {3, side - 4}} {
			if !m[c[1]][c[0]] || m[c[1]][c[0]+2] || !m[c[1]-3][c[0]-3] {
				t.Fatalf("%d bytes: the finder at %v is broken", len(data), c)
			}
		}
		svg, err := qr.SVG(data)
		if err != nil || !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>") {
			t.Fatalf("%d bytes: SVG %.40q…, %v", len(data), svg, err)
		}
	})
}

// The table is the encoder's: each version's capacity takes that version,
// one byte more the next.
func TestCapacityTable(t *testing.T) {
	for v := 1; v <= 40; v++ {
		for _, n := range []int{capacityM[v-1] + 1, capacityM[v]} {
			m, err := qr.Encode(make([]byte, n))
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != 4*v+17 {
				t.Errorf("%d bytes: version %d, want %d", n, (len(m)-17)/4, v)
			}
		}
	}
}

// The capacity table agrees with MaxLen.
func TestMaxLenIsVersion40sCapacity(t *testing.T) {
	if capacityM[40] != qr.MaxLen {
		t.Fatalf("MaxLen = %d, version 40 holds %d", qr.MaxLen, capacityM[40])
	}
	if _, err := qr.Encode(make([]byte, qr.MaxLen)); err != nil {
		t.Errorf("MaxLen bytes: %v", err)
	}
	if _, err := qr.Encode(make([]byte, qr.MaxLen+1)); !errors.Is(err, qr.ErrTooLong) {
		t.Errorf("MaxLen+1 bytes: %v", err)
	}
}
