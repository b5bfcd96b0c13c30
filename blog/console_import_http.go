package blog

import (
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"folio/httpx"
)

// importView is the data of templates/console/blog-import.html: the form
// as typed (or empty), the import limit, and, once a file is imported, the
// report.
type importView struct {
	Formats []importFormatChoice
	Format  string
	Media   bool
	From    string
	// Field is the form field a refusal is about ("file", "format",
	// "media", "from"), to mark it invalid.
	Field string
	// Action is the form's target, the form token in its query string:
	// a multipart form's token is read there, so that checking it never
	// reads the file (auth.Console).
	Action  string
	MaxSize int64
	Report  *importReport
}

// importFormatChoice is one option of the form's format list.
type importFormatChoice struct{ Value, Label string }

// importFormats are the form's formats, "" first: the file's own bytes
// say what it is.
var importFormats = []importFormatChoice{
	{"", "Recognise from the file"},
	{FormatFolio, "Folio archive (.zip)"},
	{FormatGhost, "Ghost export (.json)"},
	{FormatWXR, "WordPress export (WXR, .xml)"},
	{FormatMarkdown, "Hugo or Jekyll site (Markdown, in an archive)"},
}

// importFormatName is how the report names the format a file was read as.
func importFormatName(format string) string {
	switch format {
	case FormatFolio:
		return "Folio archive"
	case FormatGhost:
		return "Ghost export"
	case FormatWXR:
		return "WordPress export (WXR)"
	case FormatMarkdown:
		return "Hugo or Jekyll site"
	}
	return format
}

// importReport is an import's result as the console shows it.
type importReport struct {
	File, Format string
	Rows         []importReportRow
	Settings     SettingsCount
	Losses       []ImportLoss
	Warnings     []string
}

// importReportRow is one kind's line, with a note saying what its numbers
// mean where the columns' names do not say it.
type importReportRow struct {
	Label, Note string
	ImportCount
}

func newImportReport(file string, res *ImportResult) *importReport {
	rep := &importReport{File: file, Format: importFormatName(res.Format), Settings: res.Settings,
		Losses: res.LossList(), Warnings: res.Warnings}
	for _, row := range res.Rows() {
		rr := importReportRow{Label: upperFirst(row.Kind), ImportCount: row.ImportCount}
		switch row.Kind {
		case "redirects":
			rr.Note = "old addresses that now lead to the imported posts"
		case "media":
			rr.Note = "imported: brought home into your files; skipped: already home from an earlier import; changed: left at the old address"
		}
		rep.Rows = append(rep.Rows, rr)
	}
	return rep
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// handleConsoleImport is GET /console/blog/import: the import form and the
// export's download (docs/console.md#import-and-export).
func (b consoleHandlers) handleConsoleImport(w http.ResponseWriter, r *http.Request) error {
	return b.renderImport(w, r, http.StatusOK, importView{}, "")
}

// handleConsoleRunImport is POST /console/blog/import: the form of the
// API's import (readImportForm: the same fields, limits and spool file),
// imported as the API imports it. The answer is the page with the report,
// not a redirect: the report is made once, by this import. A refused
// form, or a file the import refuses, is the form again with the problem
// and the status the API would answer (400, 409, 413).
func (b consoleHandlers) handleConsoleRunImport(w http.ResponseWriter, r *http.Request) error {
	u, err := b.readImportForm(w, r)
	defer u.close(r)
	var res *ImportResult
	if err == nil {
		res, err = b.runImport(r, u)
	}
	form := importView{Format: u.opts.Format, Media: u.opts.Media, From: u.from}
	if err != nil {
		if r.Context().Err() != nil {
			return err // the client left
		}
		he := httpx.AsError(err)
		if he.Status >= 500 {
			return err
		}
		if !knownImportFormat(form.Format) {
			form.Format = ""
		}
		form.Field = u.field
		return b.renderImport(w, r, he.Status, form, httpx.Sentence(he.Msg))
	}
	form.Report = newImportReport(u.name, res)
	return b.renderImport(w, r, http.StatusOK, form, "")
}

func (b consoleHandlers) renderImport(w http.ResponseWriter, r *http.Request, status int, d importView, problem string) error {
	title := "Import and export"
	if d.Report != nil {
		title = "Import report"
	}
	v := b.console.View(w, r, title, "blog-import")
	v.Error = problem
	d.Formats = importFormats
	d.MaxSize = b.importLimit
	d.Action = "/console/blog/import?form_token=" + url.QueryEscape(v.FormToken)
	d.From = strings.ToValidUTF8(d.From, "")
	v.Data = d
	b.console.Render(w, r, status, "blog-import", v)
	return nil
}
