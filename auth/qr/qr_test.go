package qr_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"folio/auth/qr"
)

// zbarimg returns the path of the zbarimg decoder (Debian package
// zbar-tools). Under CI=true its absence fails the test: the round trip
// through a real decoder is the only proof the symbols are readable.
func zbarimg(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("zbarimg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("zbarimg is not installed (apt-get install zbar-tools); CI needs it")
		}
		t.Skip("zbarimg is not installed (apt-get install zbar-tools): skipping the decode round trip")
	}
	return p
}

// decodeQR renders m as a PNG (8 pixels a module, a 4-module white border)
// and returns what zbarimg reads from it.
func decodeQR(t *testing.T, zbar string, m [][]bool) string {
	t.Helper()
	const scale, border = 8, 4
	side := (len(m) + 2*border) * scale
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y, row := range m {
		for x, dark := range row {
			if !dark {
				continue
			}
			for dy := range scale {
				for dx := range scale {
					img.SetGray((x+border)*scale+dx, (y+border)*scale+dy, color.Gray{})
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "qr.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zbar, "--raw", "-q", path).Output()
	if err != nil {
		t.Fatalf("zbarimg could not read the symbol (%d modules): %v", len(m), err)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// text makes n bytes of printable ASCII that vary along the string.
func text(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;="
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[(i*7+i/3)%len(alphabet)]
	}
	return string(b)
}

func TestEncodeDecodesWithZbar(t *testing.T) {
	zbar := zbarimg(t)
	// The URIs auth.OTPAuthURI makes for these accounts and secrets.
	uri := "otpauth://totp/Folio:alice@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Folio&algorithm=SHA1&digits=6&period=30"
	tests := []struct {
		name string
		data string
		size int // modules a side: 4*version+17
	}{
		{"one byte", "a", 21},
		{"20 bytes", text(20), 25},
		{"80 bytes", text(80), 37},
		{"130 bytes", text(130), 49},
		{"200 bytes", text(200), 57},
		{"otpauth URI", uri, 0},
		{"URI with escapes", "otpauth://totp/My%20Folio%20&%20Co:bob%20smith?secret=MFRGGZDFMZTWQ2LKMFRGGZDFMZTWQ2LK&issuer=My%20Folio%20%26%20Co&algorithm=SHA1&digits=6&period=30", 0},
		{"version 7 (version info)", text(130), 49},
		{"version 15", text(400), 77},
		{"version 26 (many blocks)", text(1000), 121},
		{"version 40", text(2331), 177},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := qr.Encode([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if tt.size != 0 && len(m) != tt.size {
				t.Errorf("%d modules a side, want %d", len(m), tt.size)
			}
			if got := decodeQR(t, zbar, m); got != tt.data {
				t.Fatalf("decoded %q\nwant    %q", got, tt.data)
			}
		})
	}
}

func TestEncodeStructure(t *testing.T) {
	for _, n := range []int{1, 20, 80, 130, 200} {
		m, err := qr.Encode([]byte(text(n)))
		if err != nil {
			t.Fatal(err)
		}
		size := len(m)
		for _, row := range m {
			if len(row) != size {
				t.Fatalf("%d bytes: ragged matrix", n)
			}
		}
		if (size-17)%4 != 0 {
			t.Fatalf("%d bytes: side %d is no version's", n, size)
		}
		// Finder patterns: a dark 7x7 ring, a light ring, a dark 3x3 core,
		// and a light separator inside the symbol.
		for _, c := range [][2]int{{0, 0}, {size - 7, 0}, {0, size - 7}} {
			for dy := -1; dy <= 7; dy++ {
				for dx := -1; dx <= 7; dx++ {
					x, y := c[0]+dx, c[1]+dy
					if x < 0 || y < 0 || x >= size || y >= size {
						continue
					}
					d := max(absInt(dx-3), absInt(dy-3))
					want := d != 2 && d != 4
					if m[y][x] != want {
						t.Fatalf("%d bytes: finder at %v: module (%d,%d) dark=%v", n, c, x, y, m[y][x])
					}
				}
			}
		}
		for i := 8; i < size-8; i++ {
			if m[6][i] != (i%2 == 0) || m[i][6] != (i%2 == 0) {
				t.Fatalf("%d bytes: timing pattern broken at %d", n, i)
			}
		}
		if !m[size-8][8] {
			t.Fatalf("%d bytes: the dark module is light", n)
		}
	}
}

func TestEncodeRejectsTooLongData(t *testing.T) {
	for _, n := range []int{2332, 5000} {
		if _, err := qr.Encode(make([]byte, n)); !errors.Is(err, qr.ErrTooLong) {
			t.Errorf("%d bytes: err = %v, want ErrTooLong", n, err)
		}
		if _, err := qr.SVG(make([]byte, n)); !errors.Is(err, qr.ErrTooLong) {
			t.Errorf("SVG %d bytes: err = %v", n, err)
		}
	}
	if _, err := qr.Encode(nil); err != nil {
		t.Errorf("empty data: %v", err)
	}
}

func TestSVG(t *testing.T) {
	data := []byte("otpauth://totp/Folio:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Folio&algorithm=SHA1&digits=6&period=30")
	svg, err := qr.SVG(data)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := qr.Encode(data)
	side := len(m) + 8
	for _, want := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"`,
		`viewBox="0 0 ` + itoa(side) + " " + itoa(side) + `"`,
		`role="img"`, `aria-label="QR code"`, `shape-rendering="crispEdges"`, `fill="#000000"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %s", want)
		}
	}
	if strings.Contains(svg, "style") {
		t.Error("svg has a style attribute or element; the CSP forbids inline styles")
	}
	if n := strings.Count(svg, "<path"); n != 1 {
		t.Errorf("%d paths, want 1", n)
	}
	// The path covers exactly the dark modules, offset by the quiet zone.
	d := regexp.MustCompile(` d="([^"]*)"`).FindStringSubmatch(svg)[1]
	got := map[[2]int]bool{}
	for _, r := range regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`).FindAllStringSubmatch(d, -1) {
		x, y, w := atoi(r[1]), atoi(r[2]), atoi(r[3])
		for i := range w {
			got[[2]int{x + i - 4, y - 4}] = true
		}
	}
	for y, row := range m {
		for x, dark := range row {
			if got[[2]int{x, y}] != dark {
				t.Fatalf("module (%d,%d): path %v, matrix %v", x, y, got[[2]int{x, y}], dark)
			}
		}
	}
	if len(got) == 0 {
		t.Fatal("empty path")
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// The byte capacities of versions 1-10 at level M, from the standard's
// table: the largest input of each version still fits it, one byte more
// takes the next version.
func TestEncodeChoosesTheSmallestVersion(t *testing.T) {
	capacity := []int{14, 26, 42, 62, 84, 106, 122, 152, 180, 213}
	for i, n := range capacity {
		v := i + 1
		m, err := qr.Encode(make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 4*v+17 {
			t.Errorf("%d bytes: version %d, want %d", n, (len(m)-17)/4, v)
		}
		m, err = qr.Encode(make([]byte, n+1))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 4*(v+1)+17 {
			t.Errorf("%d bytes: version %d, want %d", n+1, (len(m)-17)/4, v+1)
		}
	}
}
