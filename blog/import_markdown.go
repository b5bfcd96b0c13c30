package blog

import (
	"context"
	"errors"
	"fmt"
	"folio/blog/htmltomd"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"folio/blog/frontmatter"
	"folio/sqlstore"
)

// A Hugo or Jekyll site: Markdown files with front matter, in a folder or
// an archive of one (docs/export-import.md#hugo-and-jekyll). Which files
// are posts and which pages follows from where they are (planSite); each
// is read twice, first for the addresses that links between posts resolve
// to, then to import it.

// ImportDir imports the Hugo or Jekyll site in fsys, a folder (as
// os.DirFS gives it), as Import imports an archive of one: in one
// transaction, matching what the blog already has. Folders that never hold
// content (.git, node_modules, the built site) are not read; the Markdown
// read counts against the import limit.
func (b *Blog) ImportDir(ctx context.Context, fsys fs.FS, opts ImportOptions) (*ImportResult, error) {
	if opts.Format != "" && opts.Format != FormatMarkdown {
		return nil, inputErrorf("a folder is read as a Hugo or Jekyll site (format markdown), not as %q", opts.Format)
	}
	return b.importWith(ctx, opts, func(work context.Context) (string, importSource, error) {
		files, err := openDirSite(work, fsys, b.importLimit)
		if err != nil {
			return "", nil, err
		}
		src, err := newSite(files)
		return FormatMarkdown, src, err
	})
}

// openSiteArchive opens a zip, a tar or a gzip-compressed tar of a site.
func openSiteArchive(ctx context.Context, r io.ReaderAt, size, limit int64) (*markdownSite, error) {
	head := make([]byte, min(size, 512))
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		if own := ownError(err); own != nil {
			return nil, own
		}
		return nil, inputErrorf("the file cannot be read")
	}
	head = head[:n]
	var files siteFiles
	switch {
	case strings.HasPrefix(string(head), "PK\x03\x04"):
		files, err = openZipSite(ctx, r, size, limit)
	case isSiteArchive(head):
		files, err = openTarSite(ctx, r, size, head[0] == 0x1f && head[1] == 0x8b, limit)
	default:
		return nil, inputErrorf("not a Hugo or Jekyll site: the file is not a zip, tar or tar.gz archive")
	}
	if err != nil {
		return nil, err
	}
	return newSite(files)
}

// markdownSite is an opened site.
type markdownSite struct {
	files siteFiles
	plan  sitePlan
	has   map[string]bool // the names of files
}

func newSite(files siteFiles) (*markdownSite, error) {
	s := &markdownSite{files: files, plan: planSite(files.names()), has: map[string]bool{}}
	for _, n := range files.names() {
		s.has[n] = true
	}
	if len(s.plan.items) == 0 {
		return nil, inputErrorf("not a Hugo or Jekyll site: it has no Markdown posts or pages (content/, _posts/ or Markdown files)")
	}
	return s, nil
}

// siteItem is a file of the site that is a post or a page.
type siteItem struct {
	name   string // its path in the archive or folder
	page   bool
	draft  bool // in Jekyll's _drafts
	liquid bool // Jekyll's: Liquid tags, not Hugo shortcodes
	needFM bool // only with front matter (a Jekyll page)
	html   bool // written in HTML (a Jekyll post), converted to Markdown
	slug   string
	date   *time.Time // from a Jekyll file name
	key    string     // its path as the site's links name it
}

// sitePlan says which files of a site are posts and pages.
type sitePlan struct {
	items   map[string]*siteItem
	want    map[string]bool
	ignored int      // files that are neither
	badName []string // files of Jekyll's _posts without a date in their name
	root    string   // the folder that holds the site ("" or ending in "/")
	// served are the folders whose files the site serves at its root's
	// address (/images/a.png), best first: Hugo's static/, then its
	// content/ (a bundle's files are served beside its page); a Jekyll
	// site's root, or a content folder.
	served []string
}

// siteConfigs are the files at the root of a site that say it is one.
var siteConfigs = []string{"_config.yml", "_config.yaml", "_config.toml", "config.toml", "config.yaml", "config.yml",
	"config.json", "hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"}

// planSite sorts a site's files into posts, pages and the rest.
//
// The root is the archive's root, or the one folder everything is in when
// that folder holds a site (content/, _posts/, _drafts/ or a
// configuration file). A root with _posts/ or _drafts/ (or _config.yml)
// is a Jekyll site, one with content/ a Hugo site; any other root is taken
// for a Hugo content folder, whose folders are sections of posts and whose
// Markdown files are pages, unless it has no folders of Markdown, when its
// files are posts.
func planSite(names []string) sitePlan {
	p := sitePlan{items: map[string]*siteItem{}, want: map[string]bool{}}
	root := siteRoot(names)
	p.root = root
	jekyll, hugo := false, false
	for _, n := range names {
		rel, ok := strings.CutPrefix(n, root)
		if !ok {
			continue
		}
		top, _, dir := strings.Cut(rel, "/")
		switch {
		case dir && (top == "_posts" || top == "_drafts"), !dir && slices.Contains(siteConfigs[:3], top):
			jekyll = true
		case dir && top == "content":
			hugo = true
		}
	}
	p.served = []string{root}
	if hugo && !jekyll {
		p.served = []string{root + "static/", root + "content/"}
	}
	// A content folder of Markdown files alone: they are posts.
	flat := !jekyll && !hugo
	bundles := map[string]bool{}
	for _, n := range names {
		rel, ok := strings.CutPrefix(n, root)
		if !ok || !isMarkdownName(rel) {
			continue
		}
		if strings.Contains(rel, "/") && !hiddenPath(rel) {
			flat = false
		}
		if markdownStem(path.Base(rel)) == "index" {
			bundles[path.Dir(rel)] = true // relative to the root
		}
	}
	for _, n := range names {
		rel, ok := strings.CutPrefix(n, root)
		var it *siteItem
		switch {
		case !ok || hiddenPath(rel) || !isMarkdownName(rel) && !(jekyll && isJekyllHTMLPost(rel)):
		case jekyll:
			it = p.jekyllItem(rel)
		case hugo:
			if sub, ok := strings.CutPrefix(rel, "content/"); ok {
				it = hugoItem(sub, bundles, "content/", false)
			}
		default:
			it = hugoItem(rel, bundles, "", flat)
		}
		if it == nil {
			p.ignored++
			continue
		}
		it.name = n
		p.items[n] = it
		p.want[n] = true
	}
	return p
}

// siteRoot is the folder of the archive that holds the site: its root, or
// the one folder all its files are in when that folder holds a site.
func siteRoot(names []string) string {
	root := ""
	for range 4 {
		top, single := "", true
		for _, n := range names {
			rel, ok := strings.CutPrefix(n, root)
			if !ok || junkFile(rel) {
				continue
			}
			first, _, dir := strings.Cut(rel, "/")
			if !dir || top != "" && first != top {
				single = false
				break
			}
			top = first
		}
		if !single || top == "" || top == "content" || top == "_posts" || top == "_drafts" {
			return root
		}
		marked := false
		for _, n := range names {
			rel, ok := strings.CutPrefix(n, root+top+"/")
			if !ok {
				continue
			}
			first, _, dir := strings.Cut(rel, "/")
			if dir && (first == "content" || first == "_posts" || first == "_drafts") || !dir && slices.Contains(siteConfigs, first) {
				marked = true
				break
			}
		}
		if !marked {
			return root
		}
		root += top + "/"
	}
	return root
}

// junkFile: a file that archivers of some systems add (macOS resource
// forks, Finder's and Explorer's files).
func junkFile(rel string) bool {
	base := path.Base(rel)
	return strings.HasPrefix(rel, "__MACOSX/") || base == ".DS_Store" || base == "Thumbs.db" || strings.HasPrefix(base, "._")
}

// hiddenPath: a path through a folder or file that holds no content: a
// hidden one, dependencies, the built site.
func hiddenPath(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if neverRead(seg) || seg == "__MACOSX" {
			return true
		}
	}
	return false
}

// markdownExts are the extensions Hugo and Jekyll read as Markdown.
var markdownExts = []string{".md", ".markdown", ".mdown", ".mkdn", ".mkd", ".mkdown"}

func isMarkdownName(name string) bool {
	return slices.Contains(markdownExts, strings.ToLower(path.Ext(name)))
}

// markdownStem is a Markdown file's name without its extension and
// without a language code (Hugo's translations: post.fr.md).
func markdownStem(base string) string {
	stem := strings.TrimSuffix(base, path.Ext(base))
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		if lang := stem[i+1:]; isLanguageCode(lang) {
			stem = stem[:i]
		}
	}
	return stem
}

// isLanguageCode: s is a code such as en, fr, pt-br, zh-hans.
func isLanguageCode(s string) bool {
	lang, region, _ := strings.Cut(strings.ToLower(s), "-")
	letters := func(s string, lo, hi int) bool {
		if len(s) < lo || len(s) > hi {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < 'a' || s[i] > 'z' {
				return false
			}
		}
		return true
	}
	return letters(lang, 2, 3) && (region == "" || letters(region, 2, 4) || len(region) == 3 && isDigits(region))
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// jekyllName reads a Jekyll post's file name, YYYY-MM-DD-slug.md: its
// date (midnight UTC) and slug. Month and day may have one digit
// (2021-9-1-slug.md), as Jekyll reads them.
func jekyllName(base string) (*time.Time, string, bool) {
	stem := strings.TrimSuffix(base, path.Ext(base))
	parts := strings.SplitN(stem, "-", 4)
	if len(parts) != 4 || len(parts[0]) != 4 || len(parts[1]) < 1 || len(parts[1]) > 2 ||
		len(parts[2]) < 1 || len(parts[2]) > 2 || parts[3] == "" || !isDigits(parts[0]+parts[1]+parts[2]) {
		return nil, "", false
	}
	y, _ := strconv.Atoi(parts[0])
	m, _ := strconv.Atoi(parts[1])
	d, _ := strconv.Atoi(parts[2])
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return nil, "", false // 2021-02-30
	}
	return &t, parts[3], true
}

// isJekyllHTMLPost: a post of Jekyll's _posts written in HTML (with front
// matter), which Jekyll publishes as it does Markdown ones.
func isJekyllHTMLPost(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	return (ext == ".html" || ext == ".htm") && slices.Contains(strings.Split(path.Dir(rel), "/"), "_posts")
}

// jekyllItem places a file of a Jekyll site: _posts/**/YYYY-MM-DD-slug.md
// (a _posts folder may be inside a category folder too), _drafts/**,
// Markdown files at the root or in _pages/ with front matter (not the
// README and its kin, the home page or the 404 page).
func (p *sitePlan) jekyllItem(rel string) *siteItem {
	dirs := strings.Split(path.Dir(rel), "/")
	base := path.Base(rel)
	it := &siteItem{liquid: true, key: rel, html: isJekyllHTMLPost(rel)}
	switch {
	case slices.Contains(dirs, "_posts"):
		date, slug, ok := jekyllName(base)
		if !ok {
			p.badName = append(p.badName, rel)
			return nil
		}
		it.date, it.slug = date, slug
	case slices.Contains(dirs, "_drafts"):
		it.draft = true
		if date, slug, ok := jekyllName(base); ok {
			it.date, it.slug = date, slug
		} else {
			it.slug = markdownStem(base)
		}
	case path.Dir(rel) == "." || dirs[0] == "_pages":
		switch strings.ToLower(markdownStem(base)) {
		case "readme", "license", "licence", "changelog", "contributing", "code_of_conduct", "security", "index", "404":
			return nil
		}
		if dirs[0] != "_pages" && strings.HasPrefix(base, "_") {
			return nil
		}
		it.page, it.needFM, it.slug = true, true, markdownStem(base)
	default:
		return nil
	}
	return it
}

// hugoItem places a file of a Hugo content folder (rel is its path inside
// it, prefix the folder's path in the site): Markdown files at its root are
// pages (posts when flat), as are bundles right under it (about/index.md);
// files in a section (posts/, post/, blog/, …, at any depth) are posts,
// leaf bundles (posts/name/index.md) too; _index.md (a list page) and the
// other Markdown files of a bundle (its resources) are not content. A file
// named as Jekyll names posts (2019-03-04-name.md) is a post with that date
// and slug, read as Jekyll's in a bare content folder.
func hugoItem(rel string, bundles map[string]bool, prefix string, flat bool) *siteItem {
	base := path.Base(rel)
	stem := markdownStem(base)
	dir := path.Dir(rel)
	it := &siteItem{key: rel, slug: stem}
	if stem == "_index" || strings.HasPrefix(base, "_") && dir == "." {
		return nil
	}
	if stem == "index" {
		if dir == "." {
			return nil // the home page
		}
		it.slug = path.Base(dir)
		it.page = !strings.Contains(dir, "/")
		return it
	}
	// Other Markdown files of a leaf bundle are its resources.
	for d := dir; d != "."; d = path.Dir(d) {
		if bundles[prefix+d] {
			return nil
		}
	}
	if date, slug, ok := jekyllName(base); ok {
		it.date, it.slug, it.liquid = date, slug, prefix == ""
		return it
	}
	it.page = dir == "." && !flat
	return it
}

// settings: a site's configuration is its theme's business, not the
// blog's.
func (s *markdownSite) settings(context.Context, *Blog) (*Settings, error) { return nil, nil }

func (s *markdownSite) run(ctx context.Context, imp *importer) error {
	for _, name := range s.plan.badName {
		imp.res.warn("%s skipped: a Jekyll post's file name starts with its date (YYYY-MM-DD-name.md)", name)
	}
	// First the address each post and page will have, for the links
	// between them.
	idx := newSiteIndex()
	err := s.files.each(s.plan.want, func(name string, src []byte, tooLarge bool) error {
		it := s.plan.items[name]
		if tooLarge {
			return nil
		}
		doc, err := frontmatter.Parse(src)
		if err != nil || it.needFM && doc.Format == "" {
			return nil
		}
		f := newSiteFields(doc)
		slug := siteSlug(it, f)
		if slug == "" {
			slug = slugify(siteTitle(it, f))
		}
		if slug != "" {
			idx.add(it, slug)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ignored := s.plan.ignored
	err = s.files.each(s.plan.want, func(name string, src []byte, tooLarge bool) error {
		it := s.plan.items[name]
		if tooLarge {
			imp.res.warn("%s skipped: it is larger than %s", name, sizeText(maxArchiveMarkdown))
			return nil
		}
		doc, err := frontmatter.Parse(src)
		if err != nil {
			imp.res.warn("%s skipped: %v", name, err)
			return nil
		}
		if it.needFM && doc.Format == "" {
			ignored++ // Jekyll copies it as a file; it is no page
			return nil
		}
		return s.item(ctx, imp, it, doc, idx)
	})
	if err != nil {
		return err
	}
	if skipped := s.files.skipped(); ignored > 0 || len(skipped) > 0 {
		msg := fmt.Sprintf("%d other files ignored: not posts or pages (themes, layouts, static files, list pages)", ignored)
		if len(skipped) > 0 {
			msg += fmt.Sprintf("; folders not read: %s", strings.Join(skipped, ", "))
		}
		imp.res.warn("%s", msg)
	}
	return nil
}

// siteFields reads the front matter's fields by their names in lower case
// (Hugo's are case-insensitive: publishDate, publishdate), keeping the
// first error.
type siteFields struct {
	m   map[string]frontmatter.Value
	err error
}

func newSiteFields(doc frontmatter.Document) *siteFields {
	f := &siteFields{m: map[string]frontmatter.Value{}}
	for k, v := range doc.Fields {
		k = strings.ToLower(k)
		if prev, ok := f.m[k]; !ok || v.Line < prev.Line {
			f.m[k] = v
		}
	}
	return f
}

func (f *siteFields) fail(key string, v frontmatter.Value, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("line %d: %s: want %s", v.Line, key, want)
	}
}

// text is the first of keys given as a scalar, trimmed; "" when none is.
func (f *siteFields) text(keys ...string) string {
	for _, k := range keys {
		v, ok := f.m[k]
		switch {
		case !ok || v.Kind == frontmatter.Null:
		case v.Kind == frontmatter.List || v.Kind == frontmatter.Nested:
			f.fail(k, v, "text, not a list or mapping")
		default:
			if s := strings.TrimSpace(v.Text); s != "" {
				return s
			}
		}
	}
	return ""
}

// flag reads true or false; nil when absent.
func (f *siteFields) flag(key string) *bool {
	v, ok := f.m[key]
	if !ok || v.Kind == frontmatter.Null {
		return nil
	}
	if v.Kind == frontmatter.Bool {
		return &v.Bool
	}
	switch strings.ToLower(strings.TrimSpace(v.Text)) {
	case "true":
		yes := true
		return &yes
	case "false":
		no := false
		return &no
	}
	f.fail(key, v, "true or false")
	return nil
}

// time is the first of keys given as a date or time; nil when none is.
func (f *siteFields) time(keys ...string) *time.Time {
	for _, k := range keys {
		v, ok := f.m[k]
		if !ok || v.Kind == frontmatter.Null || v.Kind == frontmatter.String && strings.TrimSpace(v.Text) == "" {
			continue
		}
		if v.Kind == frontmatter.String {
			if t, ok := frontmatter.ParseTime(v.Text); ok {
				v = t
			}
		}
		if v.Kind != frontmatter.Time {
			f.fail(k, v, "a date such as 2019-03-04 or 2019-03-04T10:00:00+09:00")
			return nil
		}
		t := v.Time
		return &t
	}
	return nil
}

// list reads a list of texts, or one text; split: a text is a list of
// words (Jekyll's categories: jekyll update).
func (f *siteFields) list(key string, split bool) []string {
	v, ok := f.m[key]
	if !ok {
		return nil
	}
	var out []string
	switch v.Kind {
	case frontmatter.Null:
	case frontmatter.List:
		for _, it := range v.Items {
			switch it.Kind {
			case frontmatter.Null:
			case frontmatter.List, frontmatter.Nested:
				f.fail(key, it, "a list of texts")
				return nil
			default:
				if s := strings.TrimSpace(it.Text); s != "" {
					out = append(out, s)
				}
			}
		}
	case frontmatter.Nested:
		f.fail(key, v, "a list of texts")
	default:
		if split {
			return strings.Fields(v.Text)
		}
		if s := strings.TrimSpace(v.Text); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// siteSlug is the slug of an item: its front matter's slug, else the last
// part of its url (or of a Jekyll permalink without placeholders), else
// its file or bundle name; "" when none makes one.
func siteSlug(it *siteItem, f *siteFields) string {
	candidates := []string{f.text("slug")}
	for _, k := range []string{"url", "permalink"} {
		if u := f.text(k); u != "" && !strings.Contains(u, ":") {
			candidates = append(candidates, lastSegment(u))
		}
	}
	candidates = append(candidates, it.slug)
	for _, c := range candidates {
		if c = strings.TrimSpace(c); validSlug(c) {
			return c
		}
		if s := slugify(c); s != "" {
			return s
		}
	}
	return ""
}

// lastSegment is the last part of an address's path, without a file
// extension (.html): what Folio can keep of an old address.
func lastSegment(u string) string {
	if parsed, err := url.Parse(u); err == nil {
		u = parsed.Path
	}
	u = strings.TrimRight(u, "/")
	seg := u[strings.LastIndexByte(u, '/')+1:]
	for _, ext := range []string{".html", ".htm", ".php", ".aspx", ".asp", ".shtml"} {
		seg = strings.TrimSuffix(seg, ext)
	}
	return seg
}

// siteTitle is an item's title, else one made of its file name as Jekyll
// makes it (my-first-post: My First Post).
func siteTitle(it *siteItem, f *siteFields) string {
	if t := f.text("title"); t != "" {
		return t
	}
	words := strings.FieldsFunc(it.slug, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// siteIndex holds the address of each post and page of the site by the
// paths its links name them with.
type siteIndex struct {
	byPath map[string]string // the item's path, with and without extension; a bundle's folder
	byBase map[string]string // its file or bundle name ("" when several share it)
}

func newSiteIndex() *siteIndex {
	return &siteIndex{byPath: map[string]string{}, byBase: map[string]string{}}
}

func (x *siteIndex) add(it *siteItem, slug string) {
	addr := "/posts/" + slug
	if it.page {
		addr = "/pages/" + slug
	}
	noExt := strings.TrimSuffix(it.key, path.Ext(it.key))
	keys := []string{it.key, noExt}
	bases := []string{path.Base(it.key), path.Base(noExt)}
	if markdownStem(path.Base(it.key)) == "index" {
		keys = append(keys, path.Dir(it.key))
		bases = append(bases, path.Base(path.Dir(it.key)))
	}
	for _, k := range keys {
		x.byPath[k] = addr
	}
	for _, b := range bases {
		if prev, ok := x.byBase[b]; ok && prev != addr {
			x.byBase[b] = ""
		} else {
			x.byBase[b] = addr
		}
	}
}

// resolver resolves the links of the item at key (a Hugo ref may be
// relative to it).
func (x *siteIndex) resolver(key string) siteLink {
	return func(kind, target string) (string, bool) {
		target = strings.Trim(strings.TrimSpace(target), `"'`)
		target, anchor, _ := strings.Cut(target, "#")
		if anchor != "" {
			anchor = "#" + anchor
		}
		if target == "" {
			return "", false
		}
		var tries []string
		if strings.HasPrefix(target, "/") {
			tries = append(tries, path.Clean(target)[1:])
		} else {
			tries = append(tries, path.Join(path.Dir(key), target), path.Clean(target))
		}
		for _, t := range tries {
			t = strings.TrimSuffix(t, "/")
			if addr, ok := x.byPath[t]; ok {
				return addr + anchor, true
			}
		}
		if kind != "link" {
			base := path.Base(strings.TrimSuffix(target, "/"))
			if addr := x.byBase[base]; addr != "" {
				return addr + anchor, true
			}
		}
		return "", false
	}
}

// item imports one post or page.
func (s *markdownSite) item(ctx context.Context, imp *importer, it *siteItem, doc frontmatter.Document, idx *siteIndex) error {
	f := newSiteFields(doc)
	now := imp.b.now()
	title := siteTitle(it, f)
	var notes []string
	if f.text("title") == "" {
		notes = append(notes, "it has no title; its title was made of its file name")
	}
	slug := siteSlug(it, f)
	if slug == "" {
		slug = slugify(title)
	}
	date := f.time("date")
	if date == nil {
		date = it.date
	}
	publish := f.time("publishdate", "pubdate")
	// Jekyll's published: false; Hugo's published is a publishDate.
	var publishedFlag *bool
	if v, ok := f.m["published"]; ok {
		if v.Kind == frontmatter.Bool || strings.EqualFold(strings.TrimSpace(v.Text), "true") || strings.EqualFold(strings.TrimSpace(v.Text), "false") {
			publishedFlag = f.flag("published")
		} else if t := f.time("published"); publish == nil {
			publish = t
		}
	}
	updated := f.time("lastmod", "last_modified_at", "updated", "modified")
	expiry := f.time("expirydate", "unpublishdate")
	draft := f.flag("draft")
	summary := f.text("summary", "description", "excerpt")
	separator := f.text("excerpt_separator")
	var aliases []string
	for _, k := range []string{"aliases", "redirect_from"} {
		aliases = append(aliases, f.list(k, false)...)
	}
	var tagNames, cats []string
	var cover string
	var showComments *bool
	if !it.page {
		tagNames = f.list("tags", it.liquid)
		cats = f.list("categories", it.liquid)
		if c := f.text("category"); c != "" && !slices.Contains(cats, c) {
			cats = append([]string{c}, cats...)
		}
		cover = siteCover(f)
		if v, ok := f.m["comments"]; ok && v.Kind == frontmatter.Bool {
			showComments = &v.Bool
		}
	}
	weight := 0
	if v, ok := f.m["weight"]; ok && v.Kind == frontmatter.Number {
		weight, _ = strconv.Atoi(v.Text) // a float or a huge number: no order
	}
	if f.err != nil {
		imp.res.warn("%s skipped: %v", it.name, f.err)
		return nil
	}

	status := StatusPublished
	if it.draft || draft != nil && *draft || publishedFlag != nil && !*publishedFlag {
		status = StatusDraft
	}
	created := date
	if created == nil {
		created = publish
	}
	at := publish
	if at == nil {
		at = date
	}
	if status == StatusPublished && expiry != nil {
		if !expiry.After(now) {
			status = StatusDraft
			notes = append(notes, fmt.Sprintf("it expired on %s (expiryDate); imported as a draft", expiry.Format(time.RFC3339)))
		} else {
			notes = append(notes, fmt.Sprintf("it expires on %s (expiryDate), which Folio does not do: it stays published", expiry.Format(time.RFC3339)))
		}
	}
	if status == StatusPublished && at == nil && !it.page {
		notes = append(notes, "it has no date; published at the time of the import")
	}
	if status == StatusDraft {
		at = nil
	}
	var olds []string
	for _, a := range aliases {
		old := lastSegment(a)
		switch {
		case old == slug:
		case !validSlug(old):
			notes = append(notes, fmt.Sprintf("alias %q does not end in a name Folio can use as a slug; no redirect made of it", a))
		case !slices.Contains(olds, old):
			olds = append(olds, old)
		}
	}

	body := strings.TrimLeft(string(doc.Body), "\r\n")
	md, losses := convertSiteBody(body, it.liquid, idx.resolver(it.key))
	if it.html {
		// An HTML post: its Liquid read, it is HTML as any export's.
		var converted []htmltomd.Loss
		md, converted = htmltomd.Convert(md)
		losses = mergeLosses(losses, converted)
	}
	kind := kindPost
	if it.page {
		kind = kindPage
		created0 := imp.res.Pages.Created
		md, raw := imp.b.withoutRawHTML(md)
		losses = mergeLosses(losses, raw)
		err := imp.page(ctx, importPage{Title: title, Slug: slug, Markdown: md, Status: status, SortOrder: weight,
			PublishedAt: at, Created: created, Updated: updated, Origin: it.name, File: it.name, Notes: notes, Losses: losses})
		if err != nil {
			return err
		}
		return s.redirects(ctx, imp, kind, slug, title, md, olds, imp.res.Pages.Created > created0, it.name)
	}
	if separator == "" {
		separator = "<!--more-->"
	}
	teaser := ""
	if t, rest, ok := cutMore(md, separator); ok {
		teaser, md = t, rest
	}
	// The raw HTML Hugo's and Jekyll's renderers passed through, once the
	// more mark (an HTML comment) has been found.
	var raw, rawTeaser []htmltomd.Loss
	md, raw = imp.b.withoutRawHTML(md)
	teaser, rawTeaser = imp.b.withoutRawHTML(teaser)
	losses = mergeLosses(losses, raw, rawTeaser)
	p := importPost{Title: title, Slug: slug, Summary: summary, Markdown: md, Status: status, PublishedAt: at,
		Created: created, Updated: updated, ShowComments: showComments, Teaser: teaser, Origin: it.name, File: it.name, Losses: losses}
	if cover != "" {
		switch {
		case strings.HasPrefix(cover, "/") || strings.HasPrefix(cover, "http://") || strings.HasPrefix(cover, "https://"):
			p.CoverImage = cover
		case imp.media.fromSite(cover, it.name):
			p.CoverImage = cover // a bundle's file, brought home
		default:
			notes = append(notes, fmt.Sprintf("cover image %q is a path relative to the old page; left out", cover))
		}
	}
	if len(cats) > 1 {
		notes = append(notes, fmt.Sprintf("categories %s became tags: a Folio post has one category", quoteList(cats[1:])))
	}
	p.Notes = notes
	var err error
	if len(cats) > 0 {
		if p.CategoryID, err = imp.term(ctx, categories, importTerm{Name: cats[0], Slug: cats[0]}); err != nil {
			return err
		}
	}
	for _, t := range append(cats[min(1, len(cats)):], tagNames...) {
		id, err := imp.term(ctx, tags, importTerm{Name: t, Slug: t})
		if err != nil {
			return err
		}
		if id != "" && !slices.Contains(p.TagIDs, id) {
			p.TagIDs = append(p.TagIDs, id)
		}
	}
	created0 := imp.res.Posts.Created
	if err := imp.post(ctx, p); err != nil {
		return err
	}
	return s.redirects(ctx, imp, kind, slug, title, md, olds, imp.res.Posts.Created > created0, it.name)
}

// siteCover is a post's cover image: image, cover, featured_image, or the
// first of images; a mapping (a theme's cover: {image: …}) is not read.
func siteCover(f *siteFields) string {
	for _, k := range []string{"image", "cover", "featured_image", "images"} {
		v, ok := f.m[k]
		if !ok {
			continue
		}
		if v.Kind == frontmatter.List && len(v.Items) > 0 {
			v = v.Items[0]
		}
		if v.Kind == frontmatter.String {
			if s := strings.TrimSpace(v.Text); s != "" {
				return s
			}
		}
	}
	return ""
}

// cutMore splits md at the first separator: the teaser before it, and md
// without it. A separator alone on its line leaves a paragraph break.
func cutMore(md, separator string) (teaser, rest string, ok bool) {
	before, after, ok := strings.Cut(md, separator)
	if !ok && separator == "<!--more-->" {
		before, after, ok = strings.Cut(md, "<!-- more -->")
	}
	if !ok {
		return "", md, false
	}
	teaser = strings.TrimRight(before, " \t\r\n")
	line := strings.TrimLeft(after, " \t\r")
	if (before == "" || strings.HasSuffix(before, "\n")) && (line == "" || line[0] == '\n') {
		after = strings.TrimLeft(line, "\r\n")
		switch {
		case teaser == "":
			return teaser, after, true
		case after == "":
			return teaser, teaser + "\n", true
		}
		return teaser, teaser + "\n\n" + after, true
	}
	return teaser, before + after, true
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// redirects makes each old slug of an item (Hugo's aliases, Jekyll's
// redirect_from) lead to the item the import made or found with slug;
// none when the slug belongs to another post or page. created: the import
// created the item, so that problems are reported once, not at each
// import of the same site.
func (s *markdownSite) redirects(ctx context.Context, imp *importer, kind, slug, title, md string, olds []string, created bool, origin string) error {
	if len(olds) == 0 || imp.collecting {
		return nil
	}
	var id string
	if kind == kindPost {
		m, ok := imp.posts[slug]
		if !ok || m.conflict {
			return nil
		}
		id = m.id
	} else {
		t, content, err := pageTextBySlug(ctx, imp.tx, slug)
		if errors.Is(err, sqlstore.ErrNotFound) || err == nil && (t != strings.TrimSpace(title) || content != md) {
			return nil
		}
		if err != nil {
			return err
		}
		if id, err = pageIDBySlug(ctx, imp.tx, slug); err != nil {
			return err
		}
	}
	for _, old := range olds {
		target, err := slugRedirectTarget(ctx, imp.tx, kind, old)
		switch {
		case err == nil:
			imp.res.Redirects.Skipped++
			if target != id && created {
				imp.res.warn("%s: alias %q already leads to another %s; kept", origin, old, kind)
			}
			continue
		case !errors.Is(err, sqlstore.ErrNotFound):
			return err
		}
		lookup := postIDBySlug
		if kind == kindPage {
			lookup = pageIDBySlug
		}
		_, err = lookup(ctx, imp.tx, old)
		if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
			return err
		}
		if err == nil {
			imp.res.Redirects.Skipped++
			if created {
				imp.res.warn("%s: alias %q is the slug of another %s, which keeps it; no redirect made", origin, old, kind)
			}
			continue
		}
		if err := insertSlugRedirect(ctx, imp.tx, kind, old, id, imp.b.now()); err != nil {
			return err
		}
		imp.res.Redirects.Created++
		imp.wrote = true
	}
	return nil
}
