// Package imagemeta owns what a picture or movie file says about itself
// besides its pixels: it strips an upload's metadata (where, when, on what
// and by whom it was made) and reads the Exif orientation a thumbnail is
// turned by. It knows the formats' bytes and nothing of Folio.
//
// Stripping keeps, by an allowlist, only the blocks needed to show the
// picture as intended, in every picture a file holds, and removes or
// blanks the rest, unknown blocks included (the table is in
// docs/filehost.md#metadata-stripping):
//   - JPEG keeps the decoder's segments, JFIF without its thumbnail, the
//     orientation alone, ICC, Adobe and an HDR gain map (its MPF index
//     rewritten, its XMP reduced); Exif, other XMP, IPTC, comments,
//     previews and what follows the last picture go.
//   - PNG keeps the critical, colour and animation chunks and an
//     orientation-only eXIf; text, times, other Exif and private chunks go.
//   - WebP keeps the image, animation and ICC chunks; the others become
//     padding of the same size, so the file keeps its length.
//   - GIF keeps frames, colour tables, graphic controls, the loop count and
//     ICC; comments, plain text and other extensions go.
//   - HEIC, HEIF, AVIF, MP4, MOV and 3GP (ISO BMFF) have their metadata
//     blanked in place, so every offset stays (docs/filehost.md#heif-and-mp4);
//     MP4 audio passes as it is.
//
// It streams: one pass over the bytes as they arrive, blocks left out as
// they go by, pixels never decoded, memory one read buffer
// (StripBufferSize) whatever the file's size. Content that is none of these
// formats, or stops parsing, passes as sent from there on; the one refusal
// is ErrUnstrippable.
//
// NewStripReader and NewStripReaderSize strip (strip.go, then one file per
// format: strip_jpeg.go, strip_xmp.go, strip_png.go, strip_webp.go,
// strip_gif.go, strip_bmff.go); BMFFType names an ISO BMFF file's type by
// its brands (sniff_bmff.go); JPEGOrientation reads the orientation and
// Orient turns decoded pixels as it says (orientation.go).
package imagemeta
