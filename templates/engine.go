package templates

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// builtin holds the default theme: site/*.html and static/*.
//
//go:embed site static
var builtin embed.FS

// Kinds of site page, one template file each (site/{kind}.html).
const (
	KindHome     = "home"
	KindPost     = "post"
	KindCategory = "category"
	KindTag      = "tag"
	KindSearch   = "search"
	KindNotFound = "404"
	// KindPreviewExpired is the 410 page of a preview link past its
	// expiry (docs/console.md#preview-links). It is not required of a
	// theme: without one the embedded page is used.
	KindPreviewExpired = "preview-expired"
)

// pageWrapper is the site template that frames a standalone page; the page
// template itself is parsed into it as "page-body".
const pageWrapper = "page"

// Options configure an Engine.
type Options struct {
	// ThemeDir, when not empty, is a folder whose files replace the embedded
	// ones of the same name: {dir}/layout.html, {dir}/post.html, …,
	// {dir}/pages/{name}.html for page templates and {dir}/static/{file}
	// for assets. Files with other names are ignored.
	ThemeDir string
	// Pages holds the page templates as pages/{name}.html (the blog's
	// embedded page templates). May be nil.
	Pages fs.FS
}

// Engine renders the site's pages. Everything is parsed and checked when it
// is built, so a broken template stops start-up instead of a request; the
// parsed sets are made again on first use and dropped by Release.
type Engine struct {
	views  map[string]*parsed // by kind
	pages  map[string]*parsed // by page template name
	assets map[string]asset   // by served (hashed) file name
	urls   map[string]string  // logical asset name -> /static/… URL
}

type asset struct {
	// body is the content when it was made or read from a theme; nil for
	// an embedded file, which is read from the program's own read-only
	// data at each request (embedded) rather than copied to the heap.
	body     []byte
	embedded fs.FS
	path     string // of the embedded file
	size     int
	ctype    string
	etag     string
}

// source is one template file and where it came from, for error messages.
type source struct {
	name   string // file name, e.g. "post.html"
	origin string // "embedded site/post.html" or the theme file's path
	text   string
	alias  string // another name the file's body is known by
}

// New parses every template and loads every asset. Errors name the file.
func New(opt Options) (*Engine, error) {
	var theme fs.FS
	if opt.ThemeDir != "" {
		st, err := os.Stat(opt.ThemeDir)
		if err != nil {
			return nil, fmt.Errorf("templates: theme.dir: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("templates: theme.dir %s is not a folder", opt.ThemeDir)
		}
		theme = os.DirFS(opt.ThemeDir)
	}
	e := &Engine{
		views:  map[string]*parsed{},
		pages:  map[string]*parsed{},
		assets: map[string]asset{},
		urls:   map[string]string{},
	}
	if err := e.loadAssets(theme, opt.ThemeDir); err != nil {
		return nil, err
	}

	site, err := readSources(builtin, "site", theme, opt.ThemeDir, "")
	if err != nil {
		return nil, err
	}
	var shared, kinds []source
	for _, s := range site {
		if s.name == "layout.html" || s.name == "partials.html" {
			shared = append(shared, s)
		} else {
			kinds = append(kinds, s)
		}
	}
	if !hasSource(shared, "layout.html") {
		return nil, errors.New("templates: no layout.html")
	}
	for _, k := range kinds {
		if k.name == pageWrapper+".html" {
			continue // only used around page templates
		}
		srcs := append(append([]source{}, shared...), k)
		t, err := newParsed(func() (*template.Template, error) { return e.parse(srcs) })
		if err != nil {
			return nil, err
		}
		e.views[strings.TrimSuffix(k.name, ".html")] = t
	}
	for _, kind := range []string{KindHome, KindPost, KindCategory, KindTag, KindSearch, KindNotFound, pageWrapper} {
		if !hasSource(kinds, kind+".html") {
			return nil, fmt.Errorf("templates: no %s.html", kind)
		}
	}

	if opt.Pages != nil {
		pages, err := readSources(opt.Pages, "pages", theme, opt.ThemeDir, "pages")
		if err != nil {
			return nil, err
		}
		wrapper := sourceNamed(site, pageWrapper+".html")
		for _, p := range pages {
			body := p
			body.name, body.alias = "pages/"+p.name, "page-body"
			srcs, origin := append(append([]source{}, shared...), wrapper, body), p.origin
			t, err := newParsed(func() (*template.Template, error) { return e.parse(srcs, origin) })
			if err != nil {
				return nil, err
			}
			e.pages[strings.TrimSuffix(p.name, ".html")] = t
		}
	}
	return e, nil
}

func hasSource(list []source, name string) bool {
	return sourceNamed(list, name).name != ""
}

func sourceNamed(list []source, name string) source {
	for _, s := range list {
		if s.name == name {
			return s
		}
	}
	return source{}
}

// readSources lists the *.html files of dir in base, each replaced by the
// theme's file of the same name under themeSub when there is one.
func readSources(base fs.FS, dir string, theme fs.FS, themeDir, themeSub string) ([]source, error) {
	entries, err := fs.ReadDir(base, dir)
	if err != nil {
		return nil, fmt.Errorf("templates: read %s: %w", dir, err)
	}
	var out []source
	for _, ent := range entries {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".html") {
			continue
		}
		s, err := readOne(base, dir, ent.Name(), theme, themeDir, themeSub)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func readOne(base fs.FS, dir, name string, theme fs.FS, themeDir, themeSub string) (source, error) {
	if theme != nil {
		rel := path.Join(themeSub, name)
		b, err := fs.ReadFile(theme, rel)
		switch {
		case err == nil:
			return source{name: name, origin: filepathJoin(themeDir, rel), text: string(b)}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return source{}, fmt.Errorf("templates: theme file %s: %w", filepathJoin(themeDir, rel), err)
		}
	}
	b, err := fs.ReadFile(base, path.Join(dir, name))
	if err != nil {
		return source{}, fmt.Errorf("templates: read %s/%s: %w", dir, name, err)
	}
	return source{name: name, origin: "embedded " + dir + "/" + name, text: string(b)}, nil
}

func filepathJoin(dir, rel string) string {
	return strings.TrimRight(dir, "/") + "/" + rel
}

// parse builds one template set from srcs and runs it once on an empty view,
// so that html/template's contextual escaping, which would otherwise happen
// on the first request, reports its errors now. blame, when given, names the
// file an escaping error is charged to.
func (e *Engine) parse(srcs []source, blame ...string) (*template.Template, error) {
	root := template.New(srcs[len(srcs)-1].origin).Funcs(e.funcs())
	for _, s := range srcs {
		t, err := root.New(s.name).Parse(s.text)
		if err != nil {
			return nil, fmt.Errorf("templates: %s: %w", s.origin, err)
		}
		if s.alias != "" && t.Tree != nil { // nil: the file only defines templates
			if _, err := root.AddParseTree(s.alias, t.Tree); err != nil {
				return nil, fmt.Errorf("templates: %s: %w", s.origin, err)
			}
		}
	}
	if root.Lookup("layout") == nil || root.Lookup("content") == nil {
		return nil, fmt.Errorf("templates: %s: must define \"content\" (and layout.html \"layout\")", srcs[len(srcs)-1].origin)
	}
	err := root.ExecuteTemplate(io.Discard, "layout", &View{})
	var escErr *template.Error
	if errors.As(err, &escErr) {
		origin := srcs[len(srcs)-1].origin
		if len(blame) > 0 {
			origin = blame[0]
		}
		// The escaper's message names the file ("html/template:post.html:12:…")
		// when it can.
		for _, s := range srcs {
			if strings.Contains(escErr.Error(), ":"+s.name+":") {
				origin = s.origin
			}
		}
		return nil, fmt.Errorf("templates: %s: %w", origin, err)
	}
	// Other errors come from the empty view (nil fields), not the template.
	return root, nil
}

func (e *Engine) funcs() template.FuncMap {
	return template.FuncMap{
		"asset": func(name string) (string, error) {
			u, ok := e.urls[name]
			if !ok {
				return "", fmt.Errorf("unknown asset %q", name)
			}
			return u, nil
		},
		"date":        func(t time.Time) string { return t.UTC().Format("2 January 2006") },
		"isoDate":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"dateTime":    func(t time.Time) string { return t.UTC().Format("2 January 2006, 15:04 UTC") },
		"postURL":     func(slug string) string { return "/posts/" + url.PathEscape(slug) },
		"pageURL":     func(slug string) string { return "/pages/" + url.PathEscape(slug) },
		"categoryURL": func(slug string) string { return "/categories/" + url.PathEscape(slug) },
		"tagURL":      func(slug string) string { return "/tags/" + url.PathEscape(slug) },
		"searchURL":   func(q string) string { return "/search?q=" + url.QueryEscape(q) },
		"plural":      pluralFunc,
	}
}

// loadAssets reads static/* (theme files replacing embedded ones by name)
// and names each by a hash of its content, so it can be cached forever.
func (e *Engine) loadAssets(theme fs.FS, themeDir string) error {
	entries, err := fs.ReadDir(builtin, "static")
	if err != nil {
		return fmt.Errorf("templates: read static: %w", err)
	}
	for _, ent := range entries {
		if ent.IsDir() {
			continue
		}
		name := ent.Name()
		var body []byte
		if theme != nil {
			body, err = fs.ReadFile(theme, "static/"+name)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("templates: theme file %s: %w", filepathJoin(themeDir, "static/"+name), err)
			}
		}
		served, a := "", asset{}
		if body != nil {
			served, a = newAsset(name, body)
		} else if served, a, err = embeddedAsset(builtin, "static/"+name); err != nil {
			return err
		}
		e.assets[served] = a
		e.urls[name] = "/static/" + served
	}
	return nil
}

// AssetURL is the served URL of a static file ("style.css" →
// "/static/style.0123abcd4567.css").
func (e *Engine) AssetURL(name string) (string, bool) {
	u, ok := e.urls[name]
	return u, ok
}

// Assets lists the served URLs of every static file, sorted.
func (e *Engine) Assets() []string {
	out := make([]string, 0, len(e.urls))
	for _, u := range e.urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// ServeAsset answers a request for the static file named file (the hashed
// name) and reports false, writing nothing, when there is no such file.
// The name carries the content hash, so the answer never changes and may be
// cached for a year.
func (e *Engine) ServeAsset(w http.ResponseWriter, r *http.Request, file string) bool {
	a, ok := e.assets[file]
	if ok {
		a.serve(w, r)
	}
	return ok
}

// newAsset names an asset by a hash of its content ("style.css" →
// "style.0123abcd4567.css").
func newAsset(name string, body []byte) (string, asset) {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])[:12]
	ext := path.Ext(name)
	ctype := mime.TypeByExtension(ext)
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return strings.TrimSuffix(name, ext) + "." + hash + ext, asset{body: body, size: len(body), ctype: ctype, etag: `"` + hash + `"`}
}

// embeddedAsset is newAsset for the file at file of the embedded fsys,
// served from the program's data, not from a copy.
func embeddedAsset(fsys fs.FS, file string) (string, asset, error) {
	body, err := fs.ReadFile(fsys, file)
	if err != nil {
		return "", asset{}, fmt.Errorf("templates: read %s: %w", file, err)
	}
	served, a := newAsset(path.Base(file), body)
	a.body, a.embedded, a.path = nil, fsys, file
	return served, a, nil
}

// serve answers with the asset. Its name carries the content hash, so the
// answer never changes and may be cached for a year.
func (a asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", a.etag)
	if a.body != nil {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
		return
	}
	f, err := a.embedded.Open(a.path)
	if err != nil {
		http.Error(w, "asset unavailable", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	rs, ok := f.(io.ReadSeeker) // an embedded file is one
	if !ok {
		http.Error(w, "asset unavailable", http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, "", time.Time{}, rs)
}

// Render renders the site page of kind (KindHome, KindPost, …) into memory,
// so a failing template never sends half a page.
func (e *Engine) Render(kind string, v *View) ([]byte, error) {
	p, ok := e.views[kind]
	if !ok {
		return nil, fmt.Errorf("templates: no page kind %q", kind)
	}
	return execute(p, v)
}

// HasPage reports whether the page template name exists.
func (e *Engine) HasPage(name string) bool {
	_, ok := e.pages[name]
	return ok
}

// RenderPage renders a standalone page with its page template name, framed
// by the site layout. The template sees the whole View; .Page and .Config
// are the page and its parsed config.
func (e *Engine) RenderPage(name string, v *View) ([]byte, error) {
	p, ok := e.pages[name]
	if !ok {
		return nil, fmt.Errorf("templates: no page template %q", name)
	}
	return execute(p, v)
}

// Release drops the parsed templates, for a quiet site: the next render
// parses its page's set again (docs/design.md#memory).
func (e *Engine) Release() {
	releaseAll(e.views)
	releaseAll(e.pages)
}

func execute(p *parsed, v *View) ([]byte, error) {
	t, err := p.get()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return nil, fmt.Errorf("templates: render %s: %w", t.Name(), err)
	}
	return buf.Bytes(), nil
}
