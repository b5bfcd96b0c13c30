package imagemeta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

// FuzzStripBMFF runs the metadata stripper over ISO BMFF files (the data
// after an ftyp box the brand byte picks, or without one, as QuickTime
// wrote them) and checks what
// docs/filehost.md#heif-and-mp4 promises (the list is in
// docs/testing.md#fuzzing): the output has exactly the input's length or
// the file is refused with a clear error; it is the same however the reads
// are cut, and stripping it again changes nothing; every byte of an Exif
// or XMP item of a picture's meta box is zero in it; inside moov, only
// boxes on the allowlist are left; and when the source fails, the stripper
// returns that error after what it yields for the bytes read before.
func FuzzStripBMFF(f *testing.F) {
	ftypLen := func(b []byte) int { return int(binary.BigEndian.Uint32(b)) }
	for i, file := range [][]byte{imagemetatest.IPhoneHEIC().Data, imagemetatest.ExifInIdatAVIF().Data, imagemetatest.PhoneMovie(false).Data, imagemetatest.PhoneMovie(true).Data} {
		f.Add(byte(i), file[ftypLen(file):])
		f.Add(byte(i), file[ftypLen(file):len(file)/2])
	}
	f.Add(byte(4), imagemetatest.OldQuickTime().Data)
	f.Fuzz(func(t *testing.T, brand byte, data []byte) {
		in := slices.Clone(data) // 4: a QuickTime movie from before ftyp
		if major := []string{"heic", "avif", "isom", "qt  ", ""}[brand%5]; major != "" {
			in = append(imagemetatest.BMFFBox("ftyp", []byte(major), imagemetatest.U32(0), []byte(major)), data...)
		}
		out, err := io.ReadAll(NewStripReader(bytes.NewReader(in)))
		if errors.Is(err, ErrUnstrippable) {
			return
		}
		if err != nil {
			t.Fatalf("the stripper failed on %d bytes read whole: %v", len(in), err)
		}
		if len(out) != len(in) {
			t.Fatalf("%d bytes in, %d out", len(in), len(out))
		}
		checkStripSteady(t, in, out)
		if what := bmffMetadataLeft(in, out); what != "" {
			t.Fatal(what)
		}
		k := len(in) / 2
		part, err := io.ReadAll(NewStripReader(&failingReader{in[:k]}))
		if !errors.Is(err, errSourceFailed) && !errors.Is(err, ErrUnstrippable) {
			t.Fatalf("the source failed after %d bytes; the stripper returned %v", k, err)
		}
		if want, _ := io.ReadAll(NewStripReader(bytes.NewReader(in[:k]))); !bytes.HasPrefix(want, part) {
			t.Fatalf("before the failure at %d it yielded %d bytes that are not a start of what it yields for those bytes", k, len(part))
		}
	})
}

// bmffMetadataLeft describes the first metadata out holds, "" when there
// is none: a non-zero byte of an item the input's meta boxes name as
// Exif or XMP, or a box under moov off the allowlist (an all-zero one is
// the rest of a container that stopped parsing). It walks the input's top
// level only as far as it parses, where the stripper stops too, and skips
// a moov box that item bytes overlap. Content the stripper does not take
// for ISO BMFF has nothing to check.
func bmffMetadataLeft(in, out []byte) string {
	if !isBMFF(in) {
		return "" // not taken for ISO BMFF: it passes as sent
	}
	var spans []bmffSpan
	var moovs [][2]int
	bmffChildren(in, func(typ string, start, hdr, end int) {
		switch {
		case typ == "meta" && bmffHandler(in[start+hdr:end]) == "pict":
			items, err := bmffMetadataItems(in[start:end], hdr, int64(start))
			if err == nil {
				spans = append(spans, items...)
			}
		case typ == "moov":
			moovs = append(moovs, [2]int{start + hdr, end})
		}
	})
	for _, sp := range spans {
		for i := max(sp.start, 0); i < min(sp.end, int64(len(out))); i++ {
			if out[i] != 0 {
				return fmt.Sprintf("item byte %d of [%d, %d) is %#x", i, sp.start, sp.end, out[i])
			}
		}
	}
	left := ""
	var walk func(parent string, b []byte, at int)
	walk = func(parent string, b []byte, at int) {
		bmffChildren(b, func(typ string, start, hdr, end int) {
			switch a := bmffAction(parent, typ); {
			case left != "" || !slices.ContainsFunc(b[start:end], func(c byte) bool { return c != 0 }):
			case a == bmffBlank:
				left = fmt.Sprintf("box %q in %q at %d", typ, parent, at+start)
			case a == bmffDescend:
				walk(typ, b[start+hdr:end], at+start+hdr)
			}
		})
	}
	for _, m := range moovs {
		if !slices.ContainsFunc(spans, func(sp bmffSpan) bool { return sp.start < int64(m[1]) && sp.end > int64(m[0]) }) {
			walk("moov", out[m[0]:m[1]], m[0])
		}
	}
	return left
}
