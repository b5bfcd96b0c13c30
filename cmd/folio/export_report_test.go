package main

import (
	"strings"
	"testing"

	"folio/blog"
)

// TestImportReportIsATablePeopleRead pins what folio import prints: the
// table per kind, redirects and media only when there are some, the
// settings, the losses by kind (the most frequent first) and every warning
// naming its item.
func TestImportReportIsATablePeopleRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  blog.ImportResult
		want string
	}{
		{"everything", blog.ImportResult{Format: "wxr", Posts: blog.ImportCount{Created: 58, Skipped: 2, Changed: 12},
			Pages: blog.ImportCount{Created: 21}, Categories: blog.ImportCount{Created: 68}, Tags: blog.ImportCount{Created: 114, Skipped: 1},
			Comments: blog.ImportCount{Created: 30, Skipped: 4}, Redirects: blog.ImportCount{Created: 3},
			Media: blog.ImportCount{Created: 40, Skipped: 2, Changed: 1}, Settings: blog.SettingsCount{Skipped: 3},
			Losses:   map[string]int{"raw HTML kept as text": 4, "gallery shortcode": 2, "embed made a link": 9},
			Warnings: []string{`WordPress post "hello": password-protected in WordPress; imported as a draft`, `WordPress page "about": raw HTML kept as text (2 times)`}},
			`imported site.xml (wxr)
                 imported  skipped  changed
  posts                58        2       12
  pages                21        0        0
  categories           68        0        0
  tags                114        1        0
  comments             30        4        0
  friend links          0        0        0
  redirects             3        0        0
  media                40        2        1
  settings      0 updated, 3 skipped
  (media: imported = brought home, skipped = already home, changed = left at the old address)
lost in conversion, by kind:
  embed made a link      9
  raw HTML kept as text  4
  gallery shortcode      2
warnings:
  WordPress post "hello": password-protected in WordPress; imported as a draft
  WordPress page "about": raw HTML kept as text (2 times)
`},
		{"nothing new", blog.ImportResult{Format: "folio", Posts: blog.ImportCount{Skipped: 1}, Losses: map[string]int{}, Warnings: []string{}},
			`imported site.xml (folio)
                 imported  skipped  changed
  posts                 0        1        0
  pages                 0        0        0
  categories            0        0        0
  tags                  0        0        0
  comments              0        0        0
  friend links          0        0        0
  settings      0 updated, 0 skipped
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			printImport(&out, "site.xml", &tc.res)
			if out.String() != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", out.String(), tc.want)
			}
		})
	}
}
