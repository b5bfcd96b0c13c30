package blog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"folio/httpx/outbound"
)

// Bringing a site's own files home (docs/export-import.md#bringing-images-home):
// a Hugo or Jekyll site holds the images its posts show (a page bundle's
// cover.jpg, Hugo's static/, Jekyll's assets/). With ImportOptions.Media
// the paths of the content that name one of them are stored into the
// file host from the archive or folder, through the same MediaStore as
// downloads, rather than fetched from the old site. Only files the site's
// listing holds are ever read (siteFiles.names, where no name leads out
// of the archive or folder), so a path cannot reach anything else.

// mediaSite is a source that holds the files its content references.
type mediaSite interface {
	// mediaFile is the file of the site that upath (a destination's
	// path, decoded) names: relative to the folder of the item's file
	// from, or, starting with "/", in one of the folders the site serves
	// at its root. name is its name in the archive or folder, rel its
	// path inside the site; when there is none, why says so.
	mediaFile(upath, from string) (name, rel, why string)
	// readMedia calls fn with a reader of each file of want, one at a
	// time (siteFiles.media).
	readMedia(ctx context.Context, want map[string]bool, fn func(name string, r io.Reader) error) error
}

func (s *markdownSite) mediaFile(upath, from string) (name, rel, why string) {
	root := s.plan.root
	var tries []string
	if strings.HasPrefix(upath, "/") {
		clean := path.Clean(upath)[1:] // a rooted path never climbs above it
		for _, dir := range s.plan.served {
			tries = append(tries, dir+clean)
		}
	} else {
		joined := path.Join(path.Dir(from), upath)
		if joined == ".." || strings.HasPrefix(joined, "../") || !strings.HasPrefix(joined, root) {
			return "", "", "it is outside the site"
		}
		tries = append(tries, joined)
	}
	for _, n := range tries {
		rel := strings.TrimPrefix(n, root)
		// What a folder's reading leaves out is not taken from an
		// archive either.
		if s.has[n] && !hiddenPath(rel) && !junkFile(rel) {
			return n, rel, ""
		}
	}
	return "", "", "the site has no file " + tries[0]
}

func (s *markdownSite) readMedia(ctx context.Context, want map[string]bool, fn func(string, io.Reader) error) error {
	return s.files.media(ctx, want, fn)
}

// locate is what dest (a destination of an item's Markdown, or its cover
// image) names when it is to be brought home, the item being the site's
// file from: a file of the site, when the site has one there (preferred
// to a download of the same path); for a relative path the site has not,
// a ref that stays where it is, saying why; else the address resolve
// gives. ok is false for what is not brought home.
func (p *mediaPlan) locate(dest string, image bool, from string) (*mediaRef, bool) {
	if p.site != nil && from != "" {
		if ref, ok := p.siteRef(dest, image, from); ok {
			return ref, true
		}
	}
	src, ok := p.resolve(dest, image)
	if !ok {
		return nil, false
	}
	return &mediaRef{src: src, key: src}, true
}

// fromSite reports whether dest, a path relative to the site's file
// from, is a file of the site that the import brings home (a page
// bundle's cover image): without that, such a path means nothing on the
// blog.
func (p *mediaPlan) fromSite(dest, from string) bool {
	if p == nil || p.site == nil {
		return false
	}
	ref, ok := p.siteRef(dest, true, from)
	return ok && ref.file != ""
}

// siteRef is the file of the site dest names (see locate); ok is false
// when dest is not a file's path, or an absolute one the site has not.
func (p *mediaPlan) siteRef(dest string, image bool, from string) (*mediaRef, bool) {
	raw := destText(dest)
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Opaque != "" || u.Path == "" {
		return nil, false
	}
	if !image && !slices.Contains(fileExtensions(), strings.ToLower(path.Ext(u.Path))) {
		return nil, false
	}
	upath := u.Path
	switch {
	case u.Scheme == "" && u.Host == "":
	case (u.Scheme == "http" || u.Scheme == "https") && p.base != nil && slices.Contains(p.hosts, hostKey(u.Hostname())):
		// The old site's address (-from): its path in the site.
		if p.join {
			rest, ok := strings.CutPrefix(upath, p.base.Path)
			if !ok || !strings.HasPrefix(rest, "/") {
				return nil, false
			}
			upath = rest
		}
	default:
		return nil, false
	}
	name, rel, why := p.site.mediaFile(upath, from)
	switch {
	case name != "":
		return &mediaRef{src: "site:" + name, file: name, path: rel}, true
	case strings.HasPrefix(upath, "/"):
		return nil, false // the old site's, maybe
	}
	return &mediaRef{src: "missing:" + path.Join(path.Dir(from), upath), shown: raw, missing: why}, true
}

// siteMediaKey is what import_media remembers a site's file by: its path
// in the site and a digest of its content, so that the same file imported
// again is found, whichever archive or folder holds the site, and another
// site's file of the same path is not taken for it.
func siteMediaKey(rel string, sum []byte) string {
	return "site:" + rel + "#sha256=" + hex.EncodeToString(sum)
}

// weighSiteFiles reads the site's files p references, once each, for
// their keys; a file that is too large or cannot be read stays where it
// is (p.failed). all bounds the work of bringing files home; the error is
// ctx's only.
func (b *Blog) weighSiteFiles(ctx, all context.Context, p *mediaPlan) error {
	refs := map[string]*mediaRef{}
	want := map[string]bool{}
	for _, src := range p.order {
		if r := p.refs[src]; r.file != "" {
			refs[r.file], want[r.file] = r, true
		}
	}
	if len(want) == 0 {
		return nil
	}
	lim := b.mediaLimits
	err := p.site.readMedia(all, want, func(name string, r io.Reader) error {
		ref := refs[name]
		h := sha256.New()
		_, err := io.Copy(h, &sizeBound{r: r, left: lim.fileSize})
		if err == nil {
			ref.key = siteMediaKey(ref.path, h.Sum(nil))
			return nil
		}
		p.failed[ref.src] = b.mediaWhy(all, err)
		return stopReading(err)
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, r := range refs {
		if _, failed := p.failed[r.src]; !failed && r.key == "" {
			p.failed[r.src] = b.unread(all, err)
		}
	}
	return nil
}

// stopReading is the error of one file that ends the reading of the
// others: the end of the time, or of the archive's budget.
func stopReading(err error) error {
	_, expand := errors.AsType[*ExpandError](err)
	if expand || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// unread says why a reading that ended with err (nil: it did not come to
// the file) left a file unread.
func (b *Blog) unread(all context.Context, err error) string {
	if err == nil {
		return "it cannot be read"
	}
	return b.mediaWhy(all, err)
}

// storeSiteFiles stores the site's files of local into the file host, for
// owner, one at a time as the archive or folder gives them, and counts in
// res what became of each. The error is ctx's only.
func (b *Blog) storeSiteFiles(ctx, all context.Context, p *mediaPlan, local []*mediaRef, owner string, res *ImportResult) error {
	if len(local) == 0 {
		return nil
	}
	refs := map[string]*mediaRef{}
	want := map[string]bool{}
	for _, r := range local {
		refs[r.file], want[r.file] = r, true
	}
	lim := b.mediaLimits
	err := p.site.readMedia(all, want, func(name string, r io.Reader) error {
		ref := refs[name]
		kind := ""
		if ref.image {
			kind = "image"
		}
		h := sha256.New()
		link, err := b.media.ImportMedia(all, owner, path.Base(name), kind, &sizeBound{r: io.TeeReader(r, h), left: lim.fileSize})
		if err != nil {
			p.failed[ref.src] = b.mediaWhy(all, err)
			return stopReading(err)
		}
		p.home[ref.src] = link
		// The content read is the one weighed, unless the folder changed
		// meanwhile: then it is not remembered, and the next import
		// stores it again (the file host finds the same file).
		if key := siteMediaKey(ref.path, h.Sum(nil)); key == ref.key {
			if err := putMediaLink(ctx, b.db, key, link, b.now()); err != nil {
				b.logger.Warn("blog: import: an imported file is not remembered", "file", name, "err", err)
			}
		}
		return nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, r := range local {
		if _, ok := p.home[r.src]; ok {
			res.Media.Created++
			continue
		}
		if _, ok := p.failed[r.src]; !ok {
			p.failed[r.src] = b.unread(all, err)
		}
		res.Media.Changed++
	}
	return nil
}

// sizeBound fails a read past left bytes with outbound.ErrTooLarge, as a
// download past its limit fails.
type sizeBound struct {
	r    io.Reader
	left int64
}

func (s *sizeBound) Read(p []byte) (int, error) {
	if int64(len(p)) > s.left+1 {
		p = p[:s.left+1]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if s.left < 0 {
		return n, outbound.ErrTooLarge
	}
	return n, err
}
