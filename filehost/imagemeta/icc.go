package imagemeta

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// MaxICCProfile caps the colour profile ICCProfile returns: real ones are a
// few kilobytes, and a PNG's compressed profile could otherwise inflate
// without bound.
const MaxICCProfile = 4 << 20

// ICCProfile returns the ICC colour profile a JPEG (APP2 "ICC_PROFILE"
// segments, joined in their sequence order), PNG (iCCP, inflated) or WebP
// (ICCP chunk) embeds ahead of its image data, or nil when there is none or
// it is damaged: a picture without its profile is shown as sRGB, a picture
// with a broken one may not be shown at all.
func ICCProfile(b []byte) []byte {
	switch {
	case len(b) > 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return jpegICC(b)
	case bytes.HasPrefix(b, pngSignature):
		return pngICC(b)
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return webpICC(b)
	}
	return nil
}

// jpegICC reads the ICC segments before the first scan. Each carries its
// 1-based sequence number and the count of segments.
func jpegICC(b []byte) []byte {
	var parts [][]byte
	total := 0
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xFF {
			return nil
		}
		m := b[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0x01 || m >= 0xD0 && m <= 0xD7 { // no length
			i += 2
			continue
		}
		if m == jpegSOS || m == jpegEOI {
			break
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return nil
		}
		body := b[i+4 : i+2+n]
		i += 2 + n
		if m != jpegAPP2 || len(body) < len(iccID)+2 || string(body[:len(iccID)]) != iccID {
			continue
		}
		seq, count := int(body[len(iccID)]), int(body[len(iccID)+1])
		if count == 0 || seq == 0 || seq > count || parts != nil && len(parts) != count {
			return nil
		}
		if parts == nil {
			parts = make([][]byte, count)
		}
		if parts[seq-1] != nil {
			return nil
		}
		parts[seq-1] = body[len(iccID)+2:]
		total += len(parts[seq-1])
		if total > MaxICCProfile {
			return nil
		}
	}
	if parts == nil {
		return nil
	}
	out := make([]byte, 0, total)
	for _, p := range parts {
		if p == nil {
			return nil
		}
		out = append(out, p...)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pngICC inflates the iCCP chunk before the first IDAT: a name of 1 to 79
// bytes, a NUL, compression method 0 and the zlib stream.
func pngICC(b []byte) []byte {
	for i := len(pngSignature); i+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if n < 0 || n > len(b)-i-12 {
			return nil
		}
		data := b[i+8 : i+8+n]
		i += 12 + n
		switch typ {
		case "IDAT", "IEND":
			return nil
		case "iCCP":
			name := bytes.IndexByte(data, 0)
			if name < 1 || name > 79 || len(data) < name+2 || data[name+1] != 0 {
				return nil
			}
			zr, err := zlib.NewReader(bytes.NewReader(data[name+2:]))
			if err != nil {
				return nil
			}
			p, err := io.ReadAll(io.LimitReader(zr, MaxICCProfile+1))
			if err != nil || len(p) == 0 || len(p) > MaxICCProfile {
				return nil
			}
			return p
		}
	}
	return nil
}

// webpICC returns the ICCP chunk of an extended WebP.
func webpICC(b []byte) []byte {
	for i := 12; i+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if n < 0 || n > len(b)-i-8 {
			return nil
		}
		if string(b[i:i+4]) == "ICCP" {
			if n == 0 || n > MaxICCProfile {
				return nil
			}
			return b[i+8 : i+8+n]
		}
		i += 8 + n + n&1
	}
	return nil
}

// iccChunk is the most profile one JPEG APP2 segment holds: the segment's
// length field counts itself, the identifier and the two sequence bytes.
const iccChunk = 0xFFFF - 2 - len(iccID) - 2

// JPEGWithICC returns a JPEG with profile embedded in APP2 segments right
// after its SOI marker; jpg is returned as it is when profile is empty or
// too large for the 255 segments the format allows.
func JPEGWithICC(jpg, profile []byte) []byte {
	count := (len(profile) + iccChunk - 1) / iccChunk
	if len(profile) == 0 || count > 255 || len(jpg) < 2 {
		return jpg
	}
	out := make([]byte, 0, len(jpg)+len(profile)+count*18)
	out = append(out, jpg[:2]...)
	for seq := 1; len(profile) > 0; seq++ {
		part := profile[:min(len(profile), iccChunk)]
		profile = profile[len(part):]
		out = append(out, 0xFF, jpegAPP2)
		out = binary.BigEndian.AppendUint16(out, uint16(2+len(iccID)+2+len(part)))
		out = append(out, iccID...)
		out = append(out, byte(seq), byte(count))
		out = append(out, part...)
	}
	return append(out, jpg[2:]...)
}

// PNGWithICC returns a PNG with profile in an iCCP chunk right after its
// IHDR chunk, which the format requires to come first (iCCP must come
// before PLTE and IDAT); png is returned as it is when profile is empty or
// png does not start with a signature and IHDR.
func PNGWithICC(png, profile []byte) []byte {
	const ihdrEnd = 8 + 8 + 13 + 4
	if len(profile) == 0 || len(png) < ihdrEnd || !bytes.HasPrefix(png, pngSignature) || string(png[12:16]) != "IHDR" {
		return png
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(profile)
	zw.Close()
	data := append([]byte("ICC profile\x00\x00"), z.Bytes()...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "iCCP"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, len(png)+len(chunk))
	out = append(out, png[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, png[ihdrEnd:]...)
}
