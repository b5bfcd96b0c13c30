package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// consoleFS holds the web console: console/layout.html and
// console/partials.html shared by every page, one console/{page}.html per
// page, and console/static/* (styles and scripts). The console is not
// themed: theme.dir never replaces it (docs/console.md).
//
//go:embed console
var consoleFS embed.FS

// publicFS holds the file host's public pages (share pages and the 404
// page of short links), laid out as console/ and rendered by the same
// machinery, with public.css as their bundle. They exist whatever
// console.enabled says.
//
//go:embed public
var publicFS embed.FS

// ConsoleStaticPrefix is where the console's assets are served.
const ConsoleStaticPrefix = "/console/static/"

// PublicStaticPrefix is where the public pages' assets are served.
const PublicStaticPrefix = "/s/static/"

// Console renders the web console's pages. Every template is parsed and
// checked when it is built, so a broken one stops start-up; a page's set is
// parsed again on its first render and dropped by Release.
type Console struct {
	fsys   fs.FS
	dir    string             // "console" or "public"
	prefix string             // where the assets are served
	pages  map[string]*parsed // by page name
	assets map[string]asset   // by served (hashed) file name
	urls   map[string]string  // logical name -> served URL
}

// Public renders the file host's public pages: a set of pages like the
// console's, with its own layout and assets (served under
// PublicStaticPrefix).
type Public struct{ *Console }

// ConsoleView is what every console page template sees.
type ConsoleView struct {
	Title     string // the page's own title; the layout appends the site's
	Section   string // the navigation entry to mark as current
	SiteName  string
	BaseURL   string
	User      *ConsoleUser // nil on the sign-in pages
	FormToken string       // to put in every form (field "form_token")
	Flash     string       // a confirmation from the previous request
	Error     string       // what went wrong with the submitted form
	Data      any          // the page's own data
}

// ConsoleUser is the signed-in account as the layout shows it.
type ConsoleUser struct {
	ID       string
	Username string
	Role     string
}

// IsAdmin reports whether the account may see the administration pages.
func (u *ConsoleUser) IsAdmin() bool { return u != nil && u.Role == "admin" }

// NewConsole parses the console's templates and loads its assets.
func NewConsole() (*Console, error) {
	return newPageSet(consoleFS, "console", ConsoleStaticPrefix)
}

// NewPublic parses the public pages and loads their assets.
func NewPublic() (*Public, error) {
	c, err := newPageSet(publicFS, "public", PublicStaticPrefix)
	if err != nil {
		return nil, err
	}
	return &Public{c}, nil
}

// newPageSet parses the pages under dir of fsys, each with dir's
// layout.html and partials.html, and bundles its stylesheets as dir.css.
func newPageSet(fsys fs.FS, dir, prefix string) (*Console, error) {
	c := &Console{fsys: fsys, dir: dir, prefix: prefix,
		pages: map[string]*parsed{}, assets: map[string]asset{}, urls: map[string]string{}}
	if err := c.loadAssets(); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("templates: read %s: %w", dir, err)
	}
	var shared []string
	var pages []string
	for _, ent := range entries {
		name := ent.Name()
		switch {
		case ent.IsDir() || !strings.HasSuffix(name, ".html"):
		case name == "layout.html" || name == "partials.html":
			shared = append(shared, name)
		default:
			pages = append(pages, name)
		}
	}
	if len(shared) != 2 {
		return nil, fmt.Errorf("templates: %s needs layout.html and partials.html", dir)
	}
	for _, p := range pages {
		files := append(append([]string{}, shared...), p)
		t, err := newParsed(func() (*template.Template, error) { return c.parse(files) })
		if err != nil {
			return nil, err
		}
		c.pages[strings.TrimSuffix(p, ".html")] = t
	}
	return c, nil
}

func (c *Console) parse(files []string) (*template.Template, error) {
	page := files[len(files)-1]
	root := template.New(c.dir + "/" + page).Funcs(c.funcs())
	for _, f := range files {
		text, err := fs.ReadFile(c.fsys, c.dir+"/"+f)
		if err != nil {
			return nil, fmt.Errorf("templates: %s/%s: %w", c.dir, f, err)
		}
		if _, err := root.New(f).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("templates: %s/%s: %w", c.dir, f, err)
		}
	}
	if root.Lookup("main") == nil {
		return nil, fmt.Errorf("templates: %s/%s must define \"main\"", c.dir, page)
	}
	// Escaping errors surface on the first execution: make it now. Other
	// errors come from the empty view, not the template.
	err := root.ExecuteTemplate(io.Discard, "layout", &ConsoleView{})
	var escErr *template.Error
	if errors.As(err, &escErr) {
		return nil, fmt.Errorf("templates: %s/%s: %w", c.dir, page, err)
	}
	return root, nil
}

// loadAssets names every static file by a hash of its content. The
// stylesheets are served as one bundle, console.css, in file-name order, so
// each area of the console keeps its rules in its own file at no cost of
// requests.
func (c *Console) loadAssets() error {
	entries, err := fs.ReadDir(c.fsys, c.dir+"/static")
	if err != nil {
		return fmt.Errorf("templates: read %s/static: %w", c.dir, err)
	}
	var css bytes.Buffer
	for _, ent := range entries {
		name := ent.Name()
		if path.Ext(name) != ".css" {
			served, a, err := embeddedAsset(c.fsys, c.dir+"/static/"+name)
			if err != nil {
				return err
			}
			c.assets[served] = a
			c.urls[name] = c.prefix + served
			continue
		}
		body, err := fs.ReadFile(c.fsys, c.dir+"/static/"+name)
		if err != nil {
			return fmt.Errorf("templates: read %s/static/%s: %w", c.dir, name, err)
		}
		fmt.Fprintf(&css, "/* %s */\n", name)
		css.Write(body)
		css.WriteByte('\n')
	}
	c.addAsset(c.dir+".css", css.Bytes())
	return nil
}

func (c *Console) addAsset(name string, body []byte) {
	served, a := newAsset(name, body)
	c.assets[served] = a
	c.urls[name] = c.prefix + served
}

// AssetURL is the served URL of a console asset ("upload.js" →
// "/console/static/upload.0123abcd4567.js").
func (c *Console) AssetURL(name string) (string, bool) {
	u, ok := c.urls[name]
	return u, ok
}

// Assets maps each logical asset name to its size in bytes, for the size
// report in docs/console.md.
func (c *Console) Assets() map[string]int {
	out := map[string]int{}
	for name, u := range c.urls {
		out[name] = c.assets[strings.TrimPrefix(u, c.prefix)].size
	}
	return out
}

// ServeAsset answers a request for a console asset by its served name and
// reports false, writing nothing, when there is none. Names carry the
// content hash, so answers may be cached for a year.
func (c *Console) ServeAsset(w http.ResponseWriter, r *http.Request, file string) bool {
	a, ok := c.assets[file]
	if ok {
		a.serve(w, r)
	}
	return ok
}

// HasPage reports whether a console page template exists.
func (c *Console) HasPage(name string) bool {
	_, ok := c.pages[name]
	return ok
}

// Render renders the console page name into memory, so that a failing
// template never sends half a page.
func (c *Console) Render(name string, v *ConsoleView) ([]byte, error) {
	p, ok := c.pages[name]
	if !ok {
		return nil, fmt.Errorf("templates: no console page %q", name)
	}
	t, err := p.get()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return nil, fmt.Errorf("templates: render console/%s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// Release drops the parsed pages, for a quiet site: the next render of a
// page parses it again (docs/design.md#memory).
func (c *Console) Release() { releaseAll(c.pages) }

func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		"asset": func(name string) (string, error) {
			u, ok := c.urls[name]
			if !ok {
				return "", fmt.Errorf("unknown console asset %q", name)
			}
			return u, nil
		},
		"bytes":    HumanBytes,
		"datetime": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"isoDate":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"query":    queryWith,
		"add":      func(a, b int) int { return a + b },
		"dict":     dict,
		"plural":   pluralFunc,
	}
}

// dict builds a map from pairs of key and value, to hand a partial more
// than one value.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict wants pairs of key and value")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// HumanBytes writes a size the way people read it: 0 B, 512 B, 1.5 KiB,
// 20 MiB.
func HumanBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n) / 1024
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " " + units[i]
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " " + units[i]
}

// queryWith returns "?" plus the query values with pairs of key and
// value replaced (an empty value removes the key), for paging and filter
// links that keep the other filters.
func queryWith(v url.Values, kv ...string) string {
	q := url.Values{}
	for k, vals := range v {
		q[k] = append([]string(nil), vals...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	return "?" + q.Encode() // Encode sorts by key
}

// ConsolePager is the "pager" partial's data: where the page is among how
// many, and links to its neighbours (empty at either end).
type ConsolePager struct {
	Page, Pages, Total int
	PrevURL, NextURL   string
}

// ConsoleCopy is the "copy" partial's data: a read-only field and a button
// that copies its value.
type ConsoleCopy struct {
	ID, Label, Value string
}

// NewConsolePager builds the pager for page of size items out of total,
// linking with base plus the query in q (page replaced).
func NewConsolePager(base string, q url.Values, page, size, total int) *ConsolePager {
	p := &ConsolePager{Page: page, Total: total, Pages: (total + size - 1) / size}
	if p.Pages < 1 {
		p.Pages = 1
	}
	if page > 1 {
		p.PrevURL = base + queryWith(q, "page", strconv.Itoa(page-1))
	}
	if page < p.Pages {
		p.NextURL = base + queryWith(q, "page", strconv.Itoa(page+1))
	}
	return p
}
