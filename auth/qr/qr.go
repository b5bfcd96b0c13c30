// Package qr draws QR codes (ISO/IEC 18004): byte mode, error-correction
// level M, versions 1 to 40, the mask with the lowest penalty. It exists so
// that the console's two-factor enrolment page can show an otpauth URI as a
// picture without sending the secret to a third party or adding a
// dependency (docs/design.md#identity). It knows nothing of Folio: Encode
// gives the modules, SVG a picture that passes the console's CSP.
package qr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxLen is the most bytes a symbol holds (version 40 at level M).
const MaxLen = 2331

// ErrTooLong is returned when data does not fit in a version 40 symbol.
var ErrTooLong = errors.New("qr: data too long")

// eccPerBlockM and blocksM are, for each version (index 0 unused), the
// error-correction codewords per block and the number of blocks at level M.
var (
	eccPerBlockM = [41]int{-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
		26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28}
	blocksM = [41]int{-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
		17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49}
)

// Encode encodes data as a QR code and returns its modules, row by row;
// true is dark. The quiet zone is not included.
func Encode(data []byte) ([][]bool, error) {
	ver := 0
	for v := 1; v <= 40; v++ {
		if dataBits(len(data), v) <= dataCodewords(v)*8 {
			ver = v
			break
		}
	}
	if ver == 0 {
		return nil, fmt.Errorf("%w: %d bytes", ErrTooLong, len(data))
	}
	q := newSymbol(ver)
	q.drawFunctionPatterns()
	q.drawCodewords(q.addECC(q.encode(data)))
	best, bestScore := 0, -1
	for m := range 8 {
		q.applyMask(m)
		q.drawFormat(m)
		if s := q.penalty(); bestScore < 0 || s < bestScore {
			best, bestScore = m, s
		}
		q.applyMask(m) // XOR again undoes it
	}
	q.applyMask(best)
	q.drawFormat(best)
	return q.mod, nil
}

// SVG renders data as a QR code in SVG with a four-module quiet zone.
// Colours are attributes, not style, so that it passes a CSP without
// 'unsafe-inline'.
func SVG(data []byte) (string, error) {
	m, err := Encode(data)
	if err != nil {
		return "", err
	}
	const quiet = 4
	n := strconv.Itoa(len(m) + 2*quiet)
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + n + " " + n +
		`" role="img" aria-label="QR code" shape-rendering="crispEdges">`)
	b.WriteString(`<rect width="` + n + `" height="` + n + `" fill="#ffffff"/><path fill="#000000" d="`)
	for y, row := range m {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+quiet, y+quiet, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}

// dataBits is the length of a byte-mode segment of n bytes in version v.
func dataBits(n, v int) int {
	count := 8
	if v >= 10 {
		count = 16
	}
	if n >= 1<<count {
		return 1 << 30
	}
	return 4 + count + 8*n
}

// rawModules is the number of modules of version v that carry data or
// error correction: all but the function patterns and format/version info.
func rawModules(v int) int {
	n := (16*v+128)*v + 64
	if v >= 2 {
		align := v/7 + 2
		n -= (25*align-10)*align - 55
		if v >= 7 {
			n -= 36
		}
	}
	return n
}

func dataCodewords(v int) int {
	return rawModules(v)/8 - eccPerBlockM[v]*blocksM[v]
}

// alignment lists the row/column centres of version v's alignment patterns.
func alignment(v int) []int {
	if v == 1 {
		return nil
	}
	n := v/7 + 2
	step := (v*8 + n*3 + 5) / (n*4 - 4) * 2
	pos := make([]int, n)
	pos[0] = 6
	for i, p := n-1, 4*v+10; i >= 1; i, p = i-1, p-step {
		pos[i] = p
	}
	return pos
}

// symbol is a QR code being drawn, of version ver.
type symbol struct {
	ver  int
	size int
	mod  [][]bool // [y][x], true = dark
	fn   [][]bool // function modules, which masks and data leave alone
}

func newSymbol(v int) *symbol {
	size := 4*v + 17
	q := &symbol{ver: v, size: size, mod: make([][]bool, size), fn: make([][]bool, size)}
	for i := range size {
		q.mod[i] = make([]bool, size)
		q.fn[i] = make([]bool, size)
	}
	return q
}

func (q *symbol) setFn(x, y int, dark bool) {
	q.mod[y][x] = dark
	q.fn[y][x] = true
}

func (q *symbol) drawFunctionPatterns() {
	for i := range q.size {
		q.setFn(6, i, i%2 == 0)
		q.setFn(i, 6, i%2 == 0)
	}
	q.drawFinder(3, 3)
	q.drawFinder(q.size-4, 3)
	q.drawFinder(3, q.size-4)
	al := alignment(q.ver)
	for i, y := range al {
		for j, x := range al {
			if i == 0 && j == 0 || i == 0 && j == len(al)-1 || i == len(al)-1 && j == 0 {
				continue // a finder is there
			}
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					q.setFn(x+dx, y+dy, max(abs(dx), abs(dy)) != 1)
				}
			}
		}
	}
	q.drawFormat(0) // reserves the areas; redrawn once the mask is chosen
	q.drawVersion()
}

// drawFinder draws a finder pattern centred on (cx, cy) with its separator.
func (q *symbol) drawFinder(cx, cy int) {
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			x, y := cx+dx, cy+dy
			if x < 0 || x >= q.size || y < 0 || y >= q.size {
				continue
			}
			d := max(abs(dx), abs(dy))
			q.setFn(x, y, d != 2 && d != 4)
		}
	}
}

// drawFormat writes both copies of the format information for level M and
// mask, and the dark module.
func (q *symbol) drawFormat(mask int) {
	data := 0<<3 | mask // level M is 00
	rem := data
	for range 10 {
		rem = rem<<1 ^ (rem>>9)*0x537
	}
	bits := (data<<10 | rem) ^ 0x5412
	bit := func(i int) bool { return bits>>i&1 != 0 }
	for i := 0; i <= 5; i++ {
		q.setFn(8, i, bit(i))
	}
	q.setFn(8, 7, bit(6))
	q.setFn(8, 8, bit(7))
	q.setFn(7, 8, bit(8))
	for i := 9; i < 15; i++ {
		q.setFn(14-i, 8, bit(i))
	}
	for i := range 8 {
		q.setFn(q.size-1-i, 8, bit(i))
	}
	for i := 8; i < 15; i++ {
		q.setFn(8, q.size-15+i, bit(i))
	}
	q.setFn(8, q.size-8, true)
}

// drawVersion writes the two copies of the version information (v >= 7).
func (q *symbol) drawVersion() {
	if q.ver < 7 {
		return
	}
	rem := q.ver
	for range 12 {
		rem = rem<<1 ^ (rem>>11)*0x1F25
	}
	bits := q.ver<<12 | rem
	for i := range 18 {
		dark := bits>>i&1 != 0
		a, b := q.size-11+i%3, i/3
		q.setFn(a, b, dark)
		q.setFn(b, a, dark)
	}
}

// encode makes the data codewords: one byte-mode segment, the terminator
// and the padding.
func (q *symbol) encode(data []byte) []byte {
	capBits := dataCodewords(q.ver) * 8
	var bits []bool
	put := func(v, n int) {
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, v>>i&1 != 0)
		}
	}
	put(0b0100, 4)
	if q.ver >= 10 {
		put(len(data), 16)
	} else {
		put(len(data), 8)
	}
	for _, c := range data {
		put(int(c), 8)
	}
	put(0, min(4, capBits-len(bits)))
	put(0, (8-len(bits)%8)%8)
	out := make([]byte, 0, capBits/8)
	for i := 0; i < len(bits); i += 8 {
		var c byte
		for j := range 8 {
			if bits[i+j] {
				c |= 0x80 >> j
			}
		}
		out = append(out, c)
	}
	for pad := byte(0xEC); len(out) < capBits/8; pad ^= 0xEC ^ 0x11 {
		out = append(out, pad)
	}
	return out
}

// addECC splits the data into blocks, appends each block's Reed-Solomon
// codewords and interleaves the result.
func (q *symbol) addECC(data []byte) []byte {
	nBlocks, ecLen := blocksM[q.ver], eccPerBlockM[q.ver]
	raw := rawModules(q.ver) / 8
	nShort := nBlocks - raw%nBlocks
	shortLen := raw / nBlocks // data + ECC of a short block
	gen := rsGenerator(ecLen)
	type block struct{ data, ecc []byte }
	blocks := make([]block, nBlocks)
	k := 0
	for i := range blocks {
		n := shortLen - ecLen
		if i >= nShort {
			n++
		}
		d := data[k : k+n]
		k += n
		blocks[i] = block{d, rsRemainder(d, gen)}
	}
	out := make([]byte, 0, raw)
	for i := 0; i <= shortLen-ecLen; i++ {
		for _, b := range blocks {
			if i < len(b.data) {
				out = append(out, b.data[i])
			}
		}
	}
	for i := range ecLen {
		for _, b := range blocks {
			out = append(out, b.ecc[i])
		}
	}
	return out
}

// drawCodewords places the bits in the two-column zigzag from the bottom
// right; the remainder bits stay light.
func (q *symbol) drawCodewords(cw []byte) {
	i := 0
	for right := q.size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5 // the vertical timing pattern is skipped whole
		}
		upward := (right+1)&2 == 0
		for vert := range q.size {
			y := vert
			if upward {
				y = q.size - 1 - vert
			}
			for j := range 2 {
				x := right - j
				if q.fn[y][x] || i >= len(cw)*8 {
					continue
				}
				q.mod[y][x] = cw[i>>3]>>(7-i&7)&1 != 0
				i++
			}
		}
	}
}

func (q *symbol) applyMask(mask int) {
	for y := range q.size {
		for x := range q.size {
			if q.fn[y][x] {
				continue
			}
			var flip bool
			switch mask {
			case 0:
				flip = (x+y)%2 == 0
			case 1:
				flip = y%2 == 0
			case 2:
				flip = x%3 == 0
			case 3:
				flip = (x+y)%3 == 0
			case 4:
				flip = (x/3+y/2)%2 == 0
			case 5:
				flip = x*y%2+x*y%3 == 0
			case 6:
				flip = (x*y%2+x*y%3)%2 == 0
			case 7:
				flip = ((x+y)%2+x*y%3)%2 == 0
			}
			if flip {
				q.mod[y][x] = !q.mod[y][x]
			}
		}
	}
}

// penalty scores the symbol by the four rules of the standard: runs of
// five or more, 2x2 blocks, finder-like patterns, and dark/light balance.
func (q *symbol) penalty() int {
	n := q.size
	at := func(x, y int, vertical bool) bool {
		if vertical {
			return q.mod[x][y]
		}
		return q.mod[y][x]
	}
	score := 0
	for _, vertical := range []bool{false, true} {
		for y := range n {
			run := 1
			for x := 1; x <= n; x++ {
				if x < n && at(x, y, vertical) == at(x-1, y, vertical) {
					run++
					continue
				}
				if run >= 5 {
					score += 3 + run - 5
				}
				run = 1
			}
			// 1:1:3:1:1 with four light modules on one side; outside the
			// symbol counts as light.
			light := func(from, to int) bool {
				for x := from; x < to; x++ {
					if x >= 0 && x < n && at(x, y, vertical) {
						return false
					}
				}
				return true
			}
			for x := 0; x+7 <= n; x++ {
				if at(x, y, vertical) && !at(x+1, y, vertical) && at(x+2, y, vertical) && at(x+3, y, vertical) &&
					at(x+4, y, vertical) && !at(x+5, y, vertical) && at(x+6, y, vertical) {
					if light(x-4, x) {
						score += 40
					}
					if light(x+7, x+11) {
						score += 40
					}
				}
			}
		}
	}
	dark := 0
	for y := range n {
		for x := range n {
			if q.mod[y][x] {
				dark++
			}
			if x+1 < n && y+1 < n {
				c := q.mod[y][x]
				if q.mod[y][x+1] == c && q.mod[y+1][x] == c && q.mod[y+1][x+1] == c {
					score += 3
				}
			}
		}
	}
	total := n * n
	k := (abs(dark*20-total*10)+total-1)/total - 1
	return score + k*10
}

// rsGenerator returns the coefficients (highest power first, leading 1
// omitted) of the generator polynomial of degree n, with roots α^0..α^(n-1)
// in GF(256) modulo x^8+x^4+x^3+x^2+1.
func rsGenerator(n int) []byte {
	g := make([]byte, n)
	g[n-1] = 1
	root := byte(1)
	for range n {
		for j := range n {
			g[j] = gfMul(g[j], root)
			if j+1 < n {
				g[j] ^= g[j+1]
			}
		}
		root = gfMul(root, 2)
	}
	return g
}

// rsRemainder is the error-correction codewords of data for generator g.
func rsRemainder(data, g []byte) []byte {
	r := make([]byte, len(g))
	for _, b := range data {
		f := b ^ r[0]
		copy(r, r[1:])
		r[len(r)-1] = 0
		for i := range r {
			r[i] ^= gfMul(g[i], f)
		}
	}
	return r
}

func gfMul(x, y byte) byte {
	var z int
	for i := 7; i >= 0; i-- {
		z = z<<1 ^ (z>>7)*0x11D
		z ^= int(y>>i&1) * int(x)
	}
	return byte(z)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
