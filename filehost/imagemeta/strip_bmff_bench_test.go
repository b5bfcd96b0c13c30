package imagemeta

import (
	"bytes"
	"io"
	"testing"

	"folio/filehost/imagemeta/imagemetatest"
)

// repeatReader yields b over and over, n bytes in all.
type repeatReader struct {
	b    []byte
	left int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.left)]
	for n := 0; n < len(p); {
		n += copy(p[n:], r.b)
	}
	r.left -= int64(len(p))
	return len(p), nil
}

// BenchmarkStripMovie streams a 256 MiB MP4 laid out as cameras write it
// (ftyp, mdat, then moov with its metadata) through the stripper: the
// samples pass as they go by, so it runs at the speed of a copy.
func BenchmarkStripMovie(b *testing.B) {
	const size = 256 << 20
	movie := imagemetatest.PhoneMovie(false)
	mdatAt := int(movie.Coded.Start) - 8
	head := bytes.Clone(movie.Data[:mdatAt])
	head = append(head, imagemetatest.U32(size+8)...)
	head = append(head, "mdat"...)
	moov := movie.Data[movie.Coded.End:]
	b.SetBytes(int64(len(head) + size + len(moov)))
	for b.Loop() {
		src := io.MultiReader(bytes.NewReader(head), &repeatReader{b: imagemetatest.Payload(64<<10, 1), left: size}, bytes.NewReader(moov))
		n, err := io.Copy(io.Discard, NewStripReader(src))
		if err != nil || n != int64(len(head)+size+len(moov)) {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
}
