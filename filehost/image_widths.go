package filehost

// imageWidths are the widths /i/{key}?w=N serves, smallest first
// (docs/filehost.md#sizes).
var imageWidths = [...]int{160, 320, 480, 640, 800, 960, 1280, 1600, 1920, 2560}

// narrowerWidths are the listed widths below an image's own width that
// its type can be scaled to. A GIF has none: most are animated, and an
// animated one is served whole, which the file record does not tell
// apart from a still one.
func narrowerWidths(mime string, width int) []int {
	switch mime {
	case "image/jpeg", "image/png", "image/webp":
	default:
		return nil
	}
	var out []int
	for _, w := range imageWidths {
		if w < width {
			out = append(out, w)
		}
	}
	return out
}
