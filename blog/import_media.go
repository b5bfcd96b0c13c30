package blog

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"folio/httpx/outbound"
	"folio/sqlstore"
)

// Bringing images home (docs/export-import.md#bringing-images-home): an
// import with ImportOptions.Media runs its source twice. The first run
// writes nothing and only gathers the addresses the content references
// (mediaPlan); those are downloaded into the file host before the
// import's transaction begins, since the file host's own writes would
// otherwise wait for that transaction on SQLite; the second run stores
// the content with those addresses rewritten to the files' links.

// MediaStore keeps the files an import brings home. cmd/folio hands the
// file host's upload pipeline; the blog never imports the file host.
type MediaStore interface {
	// ImportMedia stores r, a file called name, for the user ownerID and
	// returns its link (a short link's path, /i/{key}); kind "image"
	// refuses anything that is not an image, "" takes any type the file
	// host allows. A refusal's text says why, for a person.
	ImportMedia(ctx context.Context, ownerID, name, kind string, r io.Reader) (string, error)
	// MediaExists reports whether a link ImportMedia gave still serves its
	// file to anyone.
	MediaExists(ctx context.Context, link string) (bool, error)
}

// mediaLimits bound what one import downloads.
type mediaLimits struct {
	files    int           // files downloaded, at most
	workers  int           // downloads at a time
	fileSize int64         // bytes of one download
	fileTime time.Duration // one download
	total    time.Duration // every download of the import
}

// The bounds of docs/export-import.md#limits.
func defaultMediaLimits() mediaLimits {
	return mediaLimits{files: 1000, workers: 4, fileSize: 32 << 20, fileTime: time.Minute, total: 10 * time.Minute}
}

// maxMediaURL bounds an address an import brings home.
const maxMediaURL = 2000

// client is the downloader these limits make.
func (l mediaLimits) client(allow outbound.Allowlist) *outbound.Client {
	return outbound.New(outbound.Options{Allow: allow, MaxBytes: l.fileSize, Timeout: l.fileTime,
		MaxRedirects: outbound.DefaultMaxRedirects, UserAgent: "Folio (importing a blog)"})
}

// siteSource is a source whose export says the address of the site it
// comes from (WordPress's wp:base_site_url), best first.
type siteSource interface {
	oldSite() []string
}

// mediaRewinder is a source that counts what its runs read (a Folio
// archive's decompressed bytes): it starts counting again before the
// second run.
type mediaRewinder interface {
	rewind()
}

func (a *folioArchive) rewind() { a.budget.left = a.budget.limit }

// fileExtensions are the extensions of links to the old site that are
// brought home: files, not pages.
func fileExtensions() []string {
	return []string{
		".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg", ".bmp", ".ico", ".tif", ".tiff", ".heic", ".heif",
		".pdf", ".txt", ".csv", ".rtf", ".epub", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
		".zip", ".gz", ".tgz", ".tar", ".7z", ".rar",
		".mp3", ".m4a", ".ogg", ".oga", ".opus", ".wav", ".flac", ".aac",
		".mp4", ".m4v", ".mov", ".webm", ".ogv", ".avi", ".mkv",
	}
}

// mediaRef is one address the content references: a file to download,
// or one of the site the import reads (mediaSite).
type mediaRef struct {
	src    string // absolute http(s) URL; "site:" and the name of a site's file; "missing:" and a path the site has not
	image  bool   // shown as an image (or a cover image): only an image will do
	origin string // the first item that references it, for warnings
	// key is what import_media remembers it by: src for an address; for a
	// site's file, known once it is read, its path and content
	// (siteMediaKey).
	key  string
	file string // the site's file: its name in the archive or folder
	path string // the site's file: its path inside the site
	// A relative path the site has not: the destination as warnings name
	// it, and why it stays.
	shown, missing string
}

// mediaPlan is what an import brings home: what its first run found, then
// what became of each address.
type mediaPlan struct {
	// base is where the content's paths (/wp-content/x.jpg) are found:
	// appended to the address ImportOptions.MediaOrigin gives (path
	// included, as Ghost's __GHOST_URL__ is), else resolved against the
	// origin of the address the export says. Nil: unknown.
	base   *url.URL
	join   bool     // base is MediaOrigin: paths are appended to it
	hosts  []string // the old site's hosts, without "www."
	refs   map[string]*mediaRef
	order  []string
	paths  map[string]bool   // paths found while base is unknown
	home   map[string]string // address → its link in the file host
	failed map[string]string // address → why it stayed where it was
	told   map[string]bool   // failed addresses an item's warning named
	// site is the site the import reads, whose own files its content's
	// paths may name; nil for an export.
	site mediaSite
}

func newMediaPlan(origin *url.URL, src importSource) *mediaPlan {
	p := &mediaPlan{refs: map[string]*mediaRef{}, paths: map[string]bool{}, home: map[string]string{},
		failed: map[string]string{}, told: map[string]bool{}}
	if origin != nil {
		p.base, p.join = origin, true
		p.hosts = append(p.hosts, hostKey(origin.Hostname()))
	}
	if s, ok := src.(mediaSite); ok {
		p.site = s
	}
	if s, ok := src.(siteSource); ok {
		for _, raw := range s.oldSite() {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				continue
			}
			p.hosts = append(p.hosts, hostKey(u.Hostname()))
			if p.base == nil {
				p.base = &url.URL{Scheme: u.Scheme, Host: u.Host}
			}
		}
	}
	return p
}

// mediaOrigin checks ImportOptions.MediaOrigin.
func mediaOrigin(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, inputErrorf("the old site's address must be an http or https URL such as https://old.example, not %q", s)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/")}, nil
}

// hostKey is a host name as the old site's hosts are compared: lower case,
// without "www.".
func hostKey(h string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(h, ".")), "www.")
}

// resolve is the address dest (a destination as the Markdown writes it,
// or a cover image) names when it is to be brought home: any image of
// http(s), and files of the old site; ok is false for the rest.
func (p *mediaPlan) resolve(dest string, image bool) (string, bool) {
	raw := destText(dest)
	u, err := url.Parse(raw)
	if err != nil || u.User != nil || u.Opaque != "" {
		return "", false
	}
	file := image || slices.Contains(fileExtensions(), strings.ToLower(path.Ext(u.Path)))
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
	case u.Scheme == "" && u.Host != "": // //host/x.jpg
		u.Scheme = "https"
		if p.base != nil {
			u.Scheme = p.base.Scheme
		}
	case u.Scheme == "" && strings.HasPrefix(u.Path, "/"):
		if !file {
			return "", false
		}
		if p.base == nil {
			p.paths[raw] = true
			return "", false
		}
		rel := u
		u = &url.URL{Scheme: p.base.Scheme, Host: p.base.Host, Path: u.Path, RawQuery: rel.RawQuery}
		if p.join {
			u.Path = p.base.Path + rel.Path
		}
	default:
		return "", false
	}
	if u.Host == "" || !file || (!image && !slices.Contains(p.hosts, hostKey(u.Hostname()))) {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	src := u.String()
	if len(src) > maxMediaURL {
		return "", false
	}
	return src, true
}

// destText is a destination as the Markdown writes it, its escapes read.
func destText(dest string) string {
	return strings.TrimSpace(html.UnescapeString(string(util.UnescapePunctuations([]byte(dest)))))
}

// collect notes the addresses of an item's Markdown and cover image; file
// is the item's file in the site the import reads ("" for an export).
func (p *mediaPlan) collect(b *Blog, md, cover, origin, file string) {
	add := func(dest string, image bool) {
		ref, ok := p.locate(dest, image, file)
		if !ok {
			return
		}
		if r := p.refs[ref.src]; r != nil {
			r.image = r.image || image
			return
		}
		ref.image, ref.origin = image, origin
		p.refs[ref.src] = ref
		p.order = append(p.order, ref.src)
		if ref.missing != "" {
			p.failed[ref.src] = ref.missing
		}
	}
	for _, d := range b.destinations([]byte(md)) {
		add(md[d.start:d.end], d.image)
	}
	if cover != "" {
		add(cover, true)
	}
}

// apply rewrites what was brought home in an item's Markdown and cover
// image, and returns the addresses of it that stayed where they were.
func (p *mediaPlan) apply(b *Blog, md, cover, file string) (string, string, []string) {
	if p == nil {
		return md, cover, nil
	}
	var failed []string
	link := func(dest string, image bool) (string, bool) {
		ref, ok := p.locate(dest, image, file)
		if !ok {
			return "", false
		}
		src := ref.src
		if l, ok := p.home[src]; ok {
			return l, true
		}
		if _, ok := p.failed[src]; ok && !slices.Contains(failed, src) {
			failed = append(failed, src)
		}
		return "", false
	}
	md = b.rewriteDestinations(md, link)
	if l, ok := link(cover, true); ok && cover != "" {
		cover = l
	}
	return md, cover, failed
}

// notes are the warnings of an item created with the addresses failed
// left where they were.
func (p *mediaPlan) notes(failed []string) []string {
	var out []string
	for _, src := range failed {
		out = append(out, p.leftNote(src))
		p.told[src] = true
	}
	return out
}

func (p *mediaPlan) leftNote(src string) string {
	r := p.refs[src]
	what := "file"
	if r.image {
		what = "image"
	}
	switch {
	case r.file != "":
		return fmt.Sprintf("%s %s of the site left at its address: %s", what, r.file, p.failed[src])
	case r.shown != "":
		return fmt.Sprintf("%s %s left at its address: %s", what, r.shown, p.failed[src])
	}
	return fmt.Sprintf("%s %s left at its old address: %s", what, src, p.failed[src])
}

// untold warns of the addresses that stayed where they were and that no
// created item's warning named (their items were already in the blog).
func (p *mediaPlan) untold(res *ImportResult) {
	for _, src := range p.order {
		if _, ok := p.failed[src]; ok && !p.told[src] {
			res.warn("%s: %s", p.refs[src].origin, p.leftNote(src))
		}
	}
}

// mdDest is the destination of a link or an image in Markdown source: the
// bytes [start, end).
type mdDest struct {
	start, end int
	image      bool
}

// destinations finds the destinations of src's links and images, as the
// blog's Markdown reads them, in the order of the source, each once (a
// reference definition that several links use is one destination, an
// image's when one of them is an image). The text of autolinks, code and
// raw HTML holds no destination. goldmark keeps a destination as a slice
// of the source, which gives its place; one it had to copy (never seen in
// practice) is left out, so it is neither fetched nor rewritten.
func (b *Blog) destinations(src []byte) []mdDest {
	doc := b.md.Parser().Parse(text.NewReader(src))
	at := map[int]int{} // start → index in out
	var out []mdDest
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		image := false
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest, image = n.Destination, true
		default:
			return ast.WalkContinue, nil
		}
		if len(dest) == 0 || len(src) == 0 {
			return ast.WalkContinue, nil
		}
		start := cap(src) - cap(dest)
		if start < 0 || start+len(dest) > len(src) || &src[start] != &dest[0] {
			return ast.WalkContinue, nil
		}
		if i, ok := at[start]; ok {
			out[i].image = out[i].image || image
			return ast.WalkContinue, nil
		}
		at[start] = len(out)
		out = append(out, mdDest{start: start, end: start + len(dest), image: image})
		return ast.WalkContinue, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// rewriteDestinations replaces each destination of md's links and images
// for which link gives one; everything else stays byte for byte.
func (b *Blog) rewriteDestinations(md string, link func(dest string, image bool) (string, bool)) string {
	dests := b.destinations([]byte(md))
	var sb strings.Builder
	last := 0
	for _, d := range dests {
		l, ok := link(md[d.start:d.end], d.image)
		if !ok {
			continue
		}
		sb.WriteString(md[last:d.start])
		sb.WriteString(l)
		last = d.end
	}
	if last == 0 {
		return md
	}
	sb.WriteString(md[last:])
	return sb.String()
}

// planMedia runs src once without writing anything, gathering what its
// content references.
func (b *Blog) planMedia(ctx context.Context, src importSource, origin *url.URL) (*mediaPlan, error) {
	p := newMediaPlan(origin, src)
	scratch := &ImportResult{Losses: map[string]int{}, Warnings: []string{}}
	imp := &importer{b: b, res: scratch, summaryLength: b.settings.Get(ctx).Post.SummaryLength,
		termIDs: map[string]string{}, posts: map[string]postMatch{}, media: p, collecting: true}
	if err := src.run(ctx, imp); err != nil {
		return nil, err
	}
	if r, ok := src.(mediaRewinder); ok {
		r.rewind()
	}
	return p, nil
}

// bringHome stores what p references into the file host, for owner: the
// site's own files from the site (import_media_site.go), the rest
// downloaded. It counts in res what became of each address. Addresses
// and files an earlier import brought home, whose files still serve, are
// not stored again.
// The downloads have their own time; the error is ctx's only.
func (b *Blog) bringHome(ctx context.Context, p *mediaPlan, owner string, res *ImportResult) error {
	if len(p.paths) > 0 {
		paths := make([]string, 0, len(p.paths))
		for s := range p.paths {
			paths = append(paths, s)
		}
		sort.Strings(paths)
		res.Media.Changed += len(paths)
		if p.site != nil {
			res.warn("%d images and files are paths that are not files of the site (such as %s) and stay as they are: "+
				"give the old site's address (folio import -from URL, or the import form's from) to download them", len(paths), paths[0])
		} else {
			res.warn("%d images and files are paths of the old site (such as %s) and stay as they are: the export does not say "+
				"the old site's address; give it (folio import -from URL, or the import form's from) to bring them home", len(paths), paths[0])
		}
	}
	lim := b.mediaLimits
	all, cancel := context.WithTimeout(ctx, lim.total)
	defer cancel()
	if err := b.weighSiteFiles(ctx, all, p); err != nil {
		return err
	}
	var todo []*mediaRef
	for _, src := range p.order {
		if _, ok := p.failed[src]; ok { // a file the site has not, or cannot give
			res.Media.Changed++
			continue
		}
		link, err := mediaLink(ctx, b.db, p.refs[src].key)
		switch {
		case err == nil:
			ok, err := b.media.MediaExists(ctx, link)
			if err != nil {
				return fmt.Errorf("blog: import: %w", err)
			}
			if ok {
				p.home[src] = link
				res.Media.Skipped++
				continue
			}
		case !errors.Is(err, sqlstore.ErrNotFound):
			return fmt.Errorf("blog: import: %w", err)
		}
		todo = append(todo, p.refs[src])
	}
	if len(todo) > lim.files {
		for _, r := range todo[lim.files:] {
			p.failed[r.src] = fmt.Sprintf("one import brings at most %d files home", lim.files)
			res.Media.Changed++
		}
		todo = todo[:lim.files]
	}
	// The site's own files first, one at a time as the archive gives
	// them; then the downloads.
	var local []*mediaRef
	todo = slices.DeleteFunc(todo, func(r *mediaRef) bool {
		if r.file != "" {
			local = append(local, r)
		}
		return r.file != ""
	})
	if err := b.storeSiteFiles(ctx, all, p, local, owner, res); err != nil {
		return err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, lim.workers)
	for _, r := range todo {
		select {
		case sem <- struct{}{}:
		case <-all.Done():
		}
		if all.Err() != nil {
			mu.Lock()
			p.failed[r.src] = b.mediaWhy(all, all.Err())
			res.Media.Changed++
			mu.Unlock()
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			link, err := b.fetchMedia(all, r, owner)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				p.failed[r.src] = b.mediaWhy(all, err)
				res.Media.Changed++
				return
			}
			p.home[r.src] = link
			res.Media.Created++
			// Forgetting it costs only a second download next time,
			// which gives the same file.
			if err := putMediaLink(ctx, b.db, r.src, link, b.now()); err != nil {
				b.logger.Warn("blog: import: an imported file is not remembered", "url", r.src, "err", err)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// fetchMedia downloads r's address into the file host.
func (b *Blog) fetchMedia(ctx context.Context, r *mediaRef, owner string) (string, error) {
	resp, err := b.fetch.Get(ctx, r.src)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the old site answered %s", resp.Status)
	}
	kind := ""
	if r.image {
		kind = "image"
	}
	return b.media.ImportMedia(ctx, owner, mediaName(r.src), kind, resp.Body)
}

// mediaName is the file name an address ends with.
func mediaName(src string) string {
	u, err := url.Parse(src)
	if err != nil {
		return "file"
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." {
		return "file"
	}
	return name
}

// mediaWhy says why a download failed; all is the context of every
// download, whose end is not the file's fault.
func (b *Blog) mediaWhy(all context.Context, err error) string {
	lim := b.mediaLimits
	var blocked *outbound.BlockedError
	switch {
	case errors.As(err, &blocked):
		return fmt.Sprintf("%v, which an import reaches only when import.fetch_allow names it", blocked)
	case errors.Is(err, outbound.ErrTooLarge):
		return fmt.Sprintf("it is larger than %s", byteText(lim.fileSize))
	case errors.Is(err, outbound.ErrTooManyRedirects):
		return fmt.Sprintf("it was redirected more than %d times", outbound.DefaultMaxRedirects)
	case errors.Is(err, outbound.ErrScheme):
		return "it was redirected to an address that is not http or https"
	case errors.Is(err, outbound.ErrCredentials):
		return "its address, or a redirect's, holds a user name or password"
	case all.Err() != nil:
		return fmt.Sprintf("the import's %s for downloads ran out", durationText(lim.total))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("it took longer than %s", durationText(lim.fileTime))
	}
	return err.Error()
}

// byteText writes a download's size limit as people read it.
func byteText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return sizeText(n)
}
