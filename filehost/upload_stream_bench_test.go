package filehost

import (
	"crypto/md5"
	"io"
	"os"
	"testing"

	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
)

// jpegStream is a JPEG-like stream of about size bytes: a header with Exif
// (GPS and orientation), then scan data, then EOI. It is made as it is
// read, so the benchmark holds none of it.
type jpegStream struct {
	head, body, tail []byte
	left             int64
}

func newJPEGStream(tb testing.TB, size int64) *jpegStream {
	head := imagemetatest.MetaJPEG(tb)
	sos := len(head) - 2 // up to the encoder's EOI; the scan data repeats from here
	body := make([]byte, 256<<10)
	// Entropy-coded data holds FF only with a stuffed 00 after it (about
	// one FF in 256 bytes); the stripper looks at each on its way to the
	// next marker.
	for i := 0; i < len(body); i++ {
		body[i] = byte(i*7 + i>>9)
		if body[i] == 0xFF {
			if i+1 == len(body) {
				body[i] = 0xFE
				break
			}
			body[i+1] = 0
			i++
		}
	}
	return &jpegStream{head: head[:sos], body: body, tail: []byte{0xFF, 0xD9}, left: size - int64(sos) - 2}
}

func (j *jpegStream) Read(p []byte) (int, error) {
	switch {
	case len(j.head) > 0:
		n := copy(p, j.head)
		j.head = j.head[n:]
		return n, nil
	case j.left > 0:
		n := copy(p[:min(int64(len(p)), j.left)], j.body)
		j.left -= int64(n)
		return n, nil
	case len(j.tail) > 0:
		n := copy(p, j.tail)
		j.tail = j.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

// BenchmarkUploadStream measures the upload's streaming pass (hashing and
// writing to a temp file) of a 256 MiB JPEG with metadata stripping on and
// off, and MD5 alone as the floor (docs/filehost.md#metadata-stripping).
func BenchmarkUploadStream(b *testing.B) {
	const size = 256 << 20
	for _, mode := range []string{"md5 only", "strip off", "strip on"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				var src io.Reader = newJPEGStream(b, size)
				if mode == "md5 only" {
					h := md5.New()
					if _, err := io.CopyBuffer(h, src, make([]byte, chunkSize)); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if mode == "strip on" {
					src = imagemeta.NewStripReader(src)
				}
				f, err := os.CreateTemp(b.TempDir(), "upload")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := streamHashed(f, src, size*2, nil); err != nil {
					b.Fatal(err)
				}
				f.Close()
				os.Remove(f.Name())
			}
		})
	}
}
