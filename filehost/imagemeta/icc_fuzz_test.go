package imagemeta

import (
	"bytes"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

// FuzzICCProfile: reading a profile never panics, never returns more than
// MaxICCProfile, and a profile embedded again reads back the same.
func FuzzICCProfile(f *testing.F) {
	p := imagemetatest.ICC()
	for _, file := range [][]byte{
		imagemetatest.MetaJPEG(f), imagemetatest.MetaPNG(f), imagemetatest.MetaWebP(f),
		JPEGWithICC(imagemetatest.JPEG(f, 4, 4), p), PNGWithICC(imagemetatest.PNG(f, 4, 4), p),
	} {
		format, data := stripSeed(file)
		f.Add(format, data)
	}
	f.Fuzz(func(t *testing.T, format byte, data []byte) {
		in := stripInput(format, data)
		got := ICCProfile(in)
		if len(got) > MaxICCProfile {
			t.Fatalf("a profile of %d bytes", len(got))
		}
		if got == nil {
			return
		}
		if again := ICCProfile(JPEGWithICC([]byte{0xFF, 0xD8, 0xFF, 0xD9}, got)); !bytes.Equal(again, got) {
			t.Fatalf("the profile embedded in a JPEG read back as %d bytes, not %d", len(again), len(got))
		}
	})
}
