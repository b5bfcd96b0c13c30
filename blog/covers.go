package blog

import (
	"context"

	"folio/templates"
)

// CoverSize is the size of a post's cover that is one of Folio's own
// uploads, as the API tells it beside cover_image: its pixels, and the
// srcset and sizes that let a smaller screen load a narrower copy (empty
// for a picture served only whole).
type CoverSize struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Srcset string `json:"srcset,omitempty"`
	Sizes  string `json:"sizes,omitempty"`
}

// coverSizes answers the size of each cover in covers (nil for covers from
// elsewhere or of unknown size), as sizeImages sizes the images of a
// post's text. Covers are looked up as a page or answer is made, in one
// query for all: a cover is a URL, stored as the author gave it, so a post
// saved before the file host served sizes has them too. A failed lookup
// costs the sizes, not the page.
func (b *Blog) coverSizes(ctx context.Context, covers []string) []*CoverSize {
	out := make([]*CoverSize, len(covers))
	if b.images == nil {
		return out
	}
	origins := b.ownOrigins(ctx)
	keys := make([]string, len(covers))
	var ask []string
	for i, c := range covers {
		if key, ok := ownImageKey(c, origins); ok {
			keys[i] = key
			ask = append(ask, key)
		}
	}
	if len(ask) == 0 {
		return out
	}
	sizes, err := b.images.ImageSizes(ctx, ask)
	if err != nil {
		b.logger.Warn("blog: cover sizes unknown", "err", err)
		return out
	}
	for i, c := range covers {
		size, ok := sizes[keys[i]]
		if keys[i] == "" || !ok || size.Width <= 0 || size.Height <= 0 {
			continue
		}
		cs := &CoverSize{Width: size.Width, Height: size.Height}
		if set := srcset(c, size); set != "" {
			cs.Srcset, cs.Sizes = set, contentImageSizes
		}
		out[i] = cs
	}
	return out
}

// sizeSiteCovers fills the cover sizes of the posts a site page shows.
func (b *Blog) sizeSiteCovers(ctx context.Context, posts []*templates.PostSummary) {
	covers := make([]string, len(posts))
	for i, p := range posts {
		covers[i] = p.Cover
	}
	for i, cs := range b.coverSizes(ctx, covers) {
		if cs != nil {
			p := posts[i]
			p.CoverWidth, p.CoverHeight, p.CoverSrcset, p.CoverSizes = cs.Width, cs.Height, cs.Srcset, cs.Sizes
		}
	}
}

// sizeAPICovers fills the cover_size of the posts an API answer lists.
func (b *Blog) sizeAPICovers(ctx context.Context, posts []*PostItem) {
	covers := make([]string, len(posts))
	for i, p := range posts {
		covers[i] = p.CoverImage
	}
	for i, cs := range b.coverSizes(ctx, covers) {
		posts[i].CoverSize = cs
	}
}
