package imagemeta

import (
	"encoding/binary"
	"slices"
	"strings"
)

// BMFFType names the type of an ISO BMFF file from the brands of its ftyp
// box: http.DetectContentType knows only MP4 and calls HEIC, AVIF and
// QuickTime "application/octet-stream". A picture brand anywhere in the
// list makes a picture, the most specific one winning (a HEIC lists the
// generic mif1 too); QuickTime and 3GPP go by the major brand, since MP4
// files often list a 3GPP brand among the others. "" leaves the file to
// the sniffer: not BMFF, or brands such as isom and mp42 that it already
// calls video/mp4. A QuickTime movie from before ftyp is video/quicktime.
func BMFFType(head []byte) string {
	if isOldQuickTime(head) {
		return "video/quicktime"
	}
	if !isBMFF(head) {
		return ""
	}
	size := min(int(binary.BigEndian.Uint32(head)), len(head))
	brands := []string{string(head[8:12])}
	for i := 16; i+4 <= size; i += 4 {
		brands = append(brands, string(head[i:i+4]))
	}
	has := func(list ...string) bool {
		return slices.ContainsFunc(brands, func(b string) bool { return slices.Contains(list, b) })
	}
	switch major := brands[0]; {
	case has("avif", "avis"):
		return "image/avif"
	case has("heic", "heix", "heim", "heis"):
		return "image/heic"
	case has("hevc", "hevx", "hevm", "hevs"):
		return "image/heic-sequence"
	case has("mif1", "mif2", "miaf"):
		return "image/heif"
	case has("msf1"):
		return "image/heif-sequence"
	case major == "qt  ":
		return "video/quicktime"
	case strings.HasPrefix(major, "3g2"):
		return "video/3gpp2"
	case strings.HasPrefix(major, "3g"):
		return "video/3gpp"
	}
	return ""
}

// isBMFFAudio: an MP4 audio file or audio book (M4A, M4B, M4P, F4A, F4B
// as the major brand). Its tags are a record's title, artist and cover,
// not where or on what it was made, so stripping leaves it as it is
// (docs/filehost.md#heif-and-mp4).
func isBMFFAudio(head []byte) bool {
	if len(head) < 12 || string(head[4:8]) != "ftyp" {
		return false
	}
	switch string(head[8:12]) {
	case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ":
		return true
	}
	return false
}
