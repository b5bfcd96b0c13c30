package filehost

// narrowerWidths are the widths of variantWidths below an image's own
// width that its type can be scaled to: what a srcset may offer. A GIF
// has none: most are animated, an animated one is served whole, and the
// file record does not tell it apart from a still one.
func narrowerWidths(mime string, width int) []int {
	switch mime {
	case "image/jpeg", "image/png", "image/webp":
	default:
		return nil
	}
	var out []int
	for _, w := range variantWidths {
		if w < width {
			out = append(out, w)
		}
	}
	return out
}
