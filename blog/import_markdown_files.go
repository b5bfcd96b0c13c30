package blog

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// The files of a Hugo or Jekyll site, from a zip, a tar (gzip-compressed
// or not) or a folder. Every read is bounded as the Folio archive's are
// (import_limits.go): the bytes decompressed count against the import
// limit, a file is read up to maxArchiveMarkdown, the number of files is
// bounded, and the context is checked on every read.

// siteFiles is the tree of a site.
type siteFiles interface {
	// names are the site's regular files, as cleaned slash-separated
	// paths, each once.
	names() []string
	// each reads the files of want, in the tree's own order, and calls fn
	// with each one's content; tooLarge (content nil) when the file is
	// larger than maxArchiveMarkdown.
	each(want map[string]bool, fn func(name string, src []byte, tooLarge bool) error) error
	// skipped names the folders of a folder that were not read at all.
	skipped() []string
	// media calls fn with a reader of each file of want, one at a time in
	// the tree's own order, for the import to bring the site's own images
	// and files home (import_media_site.go). Nothing bounds a file's size
	// but its reader's caller; of an archive, the bytes decompressed count
	// against the import limit (budget), each call's anew. A reader's
	// errors are ctx's, an *ExpandError, or a *siteFileError that says in
	// a person's words why the file cannot be read; fn's error stops the
	// reading and is returned.
	media(ctx context.Context, want map[string]bool, fn func(name string, r io.Reader) error) error
}

// isSiteArchive: head starts a gzip file or a tar archive.
func isSiteArchive(head []byte) bool {
	return bytes.HasPrefix(head, []byte{0x1f, 0x8b}) || len(head) >= 262 && string(head[257:262]) == "ustar"
}

// zipFormat tells a Folio archive (manifest.json at its root) from the zip
// of a site. A zip that cannot be listed is left to the Folio reader,
// whose errors say why.
func zipFormat(r io.ReaderAt, size int64) string {
	if zipEntries(r, size, maxArchiveEntries) > maxArchiveEntries {
		return FormatFolio
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return FormatFolio
	}
	for _, f := range zr.File {
		if f.Name == "manifest.json" {
			return FormatFolio
		}
	}
	return FormatMarkdown
}

// cleanName makes an archive's entry name a path inside the site: slashes,
// no leading "./" or "/", nothing above the root ("" when it would be).
func cleanName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Clean("/" + name)[1:]
	if name == "" || strings.HasPrefix(name, "..") {
		return ""
	}
	return name
}

// readSiteFile reads one file of a site, at most maxArchiveMarkdown bytes.
func readSiteFile(ctx context.Context, r io.Reader, name string, budget *expandBudget) ([]byte, bool, error) {
	ar := &archiveReader{ctx: ctx, r: r, n: maxArchiveMarkdown, limit: maxArchiveMarkdown, budget: budget, name: name}
	b, err := io.ReadAll(ar)
	if ar.n < 0 {
		if _, expand := errors.AsType[*ExpandError](err); !expand {
			return nil, true, nil
		}
	}
	if err != nil {
		return nil, false, readError(name, err)
	}
	return b, false, nil
}

// zipSite is a site in a zip.
type zipSite struct {
	ctx   context.Context
	zr    *zip.Reader
	files map[string]*zip.File
	list  []string
	limit int64
}

func openZipSite(ctx context.Context, r io.ReaderAt, size, limit int64) (*zipSite, error) {
	if n := zipEntries(r, size, maxArchiveEntries); n > maxArchiveEntries {
		return nil, &ExpandError{Msg: fmt.Sprintf("the archive holds more than %d files", maxArchiveEntries)}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		if own := ownError(err); own != nil {
			return nil, own
		}
		return nil, inputErrorf("not a Hugo or Jekyll site: the file is not a valid zip archive")
	}
	z := &zipSite{ctx: ctx, zr: zr, files: map[string]*zip.File{}, limit: limit}
	for _, f := range zr.File {
		name := cleanName(f.Name)
		if name == "" || !f.Mode().IsRegular() || strings.HasSuffix(f.Name, "/") || z.files[name] != nil {
			continue
		}
		z.files[name] = f
		z.list = append(z.list, name)
	}
	return z, nil
}

func (z *zipSite) names() []string   { return z.list }
func (z *zipSite) skipped() []string { return nil }

func (z *zipSite) each(want map[string]bool, fn func(string, []byte, bool) error) error {
	budget := &expandBudget{left: z.limit, limit: z.limit}
	for _, f := range z.zr.File {
		name := cleanName(f.Name)
		if !want[name] || z.files[name] != f {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return inputErrorf("%s cannot be read: %v", name, err)
		}
		src, tooLarge, err := readSiteFile(z.ctx, rc, name, budget)
		rc.Close()
		if err != nil {
			return err
		}
		if err := fn(name, src, tooLarge); err != nil {
			return err
		}
	}
	return nil
}

func (z *zipSite) media(ctx context.Context, want map[string]bool, fn func(string, io.Reader) error) error {
	budget := &expandBudget{left: z.limit, limit: z.limit}
	for _, f := range z.zr.File {
		name := cleanName(f.Name)
		if !want[name] || z.files[name] != f {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			if err := fn(name, errReader{siteReadError(err)}); err != nil {
				return err
			}
			continue
		}
		err = fn(name, &mediaReader{ctx: ctx, r: rc, budget: budget})
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// tarSite is a site in a tar archive, gzip-compressed or not. A tar is
// read from its start each time: once to list it, then once for each
// reading of its files.
type tarSite struct {
	ctx   context.Context
	r     io.ReaderAt
	size  int64
	gzip  bool
	limit int64
	list  []string
}

func openTarSite(ctx context.Context, r io.ReaderAt, size int64, gzip bool, limit int64) (*tarSite, error) {
	t := &tarSite{ctx: ctx, r: r, size: size, gzip: gzip, limit: limit}
	seen := map[string]bool{}
	err := t.walk(func(name string, _ *tar.Reader) error {
		if len(seen) >= maxArchiveEntries {
			return &ExpandError{Msg: fmt.Sprintf("the archive holds more than %d files", maxArchiveEntries)}
		}
		if !seen[name] {
			seen[name] = true
			t.list = append(t.list, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// walk calls fn with each regular file of the archive, as the tar reader
// is at its content. The decompressed stream counts against the import
// limit.
func (t *tarSite) walk(fn func(name string, tr *tar.Reader) error) error {
	var raw io.Reader = io.NewSectionReader(t.r, 0, t.size)
	if t.gzip {
		zr, err := gzip.NewReader(raw)
		if err != nil {
			if own := ownError(err); own != nil {
				return own
			}
			return inputErrorf("not a Hugo or Jekyll site: the gzip file is damaged")
		}
		defer zr.Close()
		raw = zr
	}
	stream := &archiveReader{ctx: t.ctx, r: raw, n: t.limit, limit: t.limit,
		budget: &expandBudget{left: t.limit, limit: t.limit}, name: "the archive"}
	tr := tar.NewReader(stream)
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return inputErrorf("not a Hugo or Jekyll site: the archive is empty or not a tar archive")
			}
			return nil
		}
		if err != nil {
			if own := ownError(err); own != nil {
				return own
			}
			if _, corrupt := errors.AsType[flate.CorruptInputError](err); corrupt || errors.Is(err, gzip.ErrChecksum) ||
				errors.Is(err, gzip.ErrHeader) || t.gzip && errors.Is(err, io.ErrUnexpectedEOF) {
				return inputErrorf("not a Hugo or Jekyll site: the gzip file is damaged")
			}
			if n == 0 {
				return inputErrorf("not a Hugo or Jekyll site: the file is not a valid tar archive")
			}
			return inputErrorf("not a Hugo or Jekyll site: the tar archive is damaged after its first %d entries", n)
		}
		name := cleanName(h.Name)
		if name == "" || h.Typeflag != tar.TypeReg {
			continue
		}
		if err := fn(name, tr); err != nil {
			return err
		}
	}
}

func (t *tarSite) names() []string   { return t.list }
func (t *tarSite) skipped() []string { return nil }

func (t *tarSite) each(want map[string]bool, fn func(string, []byte, bool) error) error {
	budget := &expandBudget{left: t.limit, limit: t.limit}
	done := map[string]bool{}
	return t.walk(func(name string, tr *tar.Reader) error {
		if !want[name] || done[name] {
			return nil
		}
		done[name] = true
		src, tooLarge, err := readSiteFile(t.ctx, tr, name, budget)
		if err != nil {
			return err
		}
		return fn(name, src, tooLarge)
	})
}

// media reads the archive from its start once more; the stream's own
// budget bounds what is decompressed.
func (t *tarSite) media(ctx context.Context, want map[string]bool, fn func(string, io.Reader) error) error {
	done := map[string]bool{}
	return t.walk(func(name string, tr *tar.Reader) error {
		if !want[name] || done[name] {
			return nil
		}
		done[name] = true
		return fn(name, &mediaReader{ctx: ctx, r: tr})
	})
}

// dirSite is a site in a folder. Folders that never hold content
// (neverRead) are not walked, so that a site with its node_modules or .git
// is read as quickly as one without.
type dirSite struct {
	ctx   context.Context
	fsys  fs.FS
	list  []string
	skip  []string
	limit int64
}

// neverRead: folders of a site that hold no posts or pages: version
// control, dependencies, the built site and caches.
func neverRead(name string) bool {
	switch name {
	case "node_modules", "vendor", "_site", "public", "resources":
		return true
	}
	return strings.HasPrefix(name, ".")
}

func openDirSite(ctx context.Context, fsys fs.FS, limit int64) (*dirSite, error) {
	d := &dirSite{ctx: ctx, fsys: fsys, limit: limit}
	err := fs.WalkDir(fsys, ".", func(name string, e fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return inputErrorf("%s cannot be read: %v", name, pathErrorText(err))
		}
		if e.IsDir() {
			if name != "." && neverRead(e.Name()) {
				d.skip = append(d.skip, name)
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if len(d.list) >= maxArchiveEntries {
			return &ExpandError{Msg: fmt.Sprintf("the folder holds more than %d files", maxArchiveEntries)}
		}
		d.list = append(d.list, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (d *dirSite) names() []string   { return d.list }
func (d *dirSite) skipped() []string { return d.skip }

func (d *dirSite) each(want map[string]bool, fn func(string, []byte, bool) error) error {
	budget := &expandBudget{left: d.limit, limit: d.limit}
	for _, name := range d.list {
		if !want[name] {
			continue
		}
		f, err := d.fsys.Open(name)
		if err != nil {
			return inputErrorf("%s cannot be read: %v", name, pathErrorText(err))
		}
		src, tooLarge, err := readSiteFile(d.ctx, f, name, budget)
		f.Close()
		if _, expand := errors.AsType[*ExpandError](err); expand {
			return &ExpandError{Msg: fmt.Sprintf("the folder's Markdown files hold more than the import limit of %d MiB", max(d.limit>>20, 1))}
		}
		if err != nil {
			return err
		}
		if err := fn(name, src, tooLarge); err != nil {
			return err
		}
	}
	return nil
}

func (d *dirSite) media(ctx context.Context, want map[string]bool, fn func(string, io.Reader) error) error {
	for _, name := range d.list {
		if !want[name] {
			continue
		}
		f, err := d.fsys.Open(name)
		if err != nil {
			if err := fn(name, errReader{siteReadError(err)}); err != nil {
				return err
			}
			continue
		}
		err = fn(name, &mediaReader{ctx: ctx, r: f})
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// siteFileError: a file of a site cannot be read; its text says why, for
// the import's report.
type siteFileError struct{ why string }

func (e *siteFileError) Error() string { return e.why }

// mediaReader reads one file of a site for media: it stops once ctx ends
// and, in an archive, once the archive's budget is spent.
type mediaReader struct {
	ctx    context.Context
	r      io.Reader
	budget *expandBudget // nil for a folder: nothing is decompressed
}

func (m *mediaReader) Read(p []byte) (int, error) {
	if err := m.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := m.r.Read(p)
	if m.budget != nil {
		if berr := m.budget.spend(n); berr != nil {
			return n, berr
		}
	}
	if err == nil || errors.Is(err, io.EOF) || ownError(err) != nil {
		return n, err
	}
	return n, siteReadError(err)
}

// siteReadError says why a file of a site cannot be read.
func siteReadError(err error) error {
	if _, corrupt := errors.AsType[flate.CorruptInputError](err); corrupt || errors.Is(err, zip.ErrChecksum) ||
		errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &siteFileError{why: "it is damaged in the archive"}
	}
	return &siteFileError{why: fmt.Sprintf("it cannot be read: %v", pathErrorText(err))}
}

// errReader fails every read with err: a file that cannot be opened.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// pathErrorText is what went wrong with a file, without the path an
// *fs.PathError repeats.
func pathErrorText(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
