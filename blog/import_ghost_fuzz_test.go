package blog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzGhostExport reads any bytes as a Ghost export the way an import
// does, without a database: opening it, then every item of the tables the
// import reads, then each post's content. It never panics; every error
// is an *InputError in Folio's words (never the JSON decoder's: no
// "json:", "cannot unmarshal", "invalid character", "looking for"); a
// broken-JSON error names a line and column within the file; each post's
// Markdown and teaser are empty or end in a newline.
func FuzzGhostExport(f *testing.F) {
	files, _ := filepath.Glob("../testdata/import/ghost/*.json")
	files = append(files, "../testdata/import/ghost-5.json")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"db": [{"data": {"posts": [{"id": true, "slug": "x"}], "tags": [{"id": [1]}]}}]}`))
	f.Add([]byte("{\"data\": {\"posts\": [\n{\"title\": \"a\nb\", \"x\": \"\\q\"}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		check := func(err error) {
			if err == nil {
				return
			}
			ie, ok := errors.AsType[*InputError](err)
			if !ok {
				t.Fatalf("error %T %v is not an InputError", err, err)
			}
			for _, raw := range []string{"json:", "cannot unmarshal", "invalid character", "looking for"} {
				if strings.Contains(ie.Msg, raw) {
					t.Fatalf("message %q holds the decoder's words", ie.Msg)
				}
			}
			if !strings.HasPrefix(ie.Msg, "not a ") {
				t.Fatalf("message %q", ie.Msg)
			}
			if _, at, ok := strings.Cut(ie.Msg, "the JSON is broken at line "); ok {
				var line, col int
				if _, err := fmt.Sscanf(at, "%d, column %d:", &line, &col); err != nil || line < 1 || col < 1 ||
					line > bytes.Count(src, []byte("\n"))+1 || col > len(src)+1 {
					t.Fatalf("message %q names no place in the file", ie.Msg)
				}
			}
		}
		g, err := openGhost(bytes.NewReader(src), int64(len(src)))
		check(err)
		if err != nil {
			return
		}
		read := func(table string, fn func(*ghostItem) error) func(*json.Decoder, int) error {
			return func(dec *json.Decoder, n int) error {
				it, err := readGhostItem(dec, table, n)
				if err != nil {
					return err
				}
				return fn(it)
			}
		}
		err = g.walk(map[string]func(*json.Decoder, int) error{
			"tags": read("tags", func(it *ghostItem) error { _, err := readGhostTag(it); return err }),
			"posts_tags": read("posts_tags", func(it *ghostItem) error {
				_, err := readGhostPostTag(it)
				return err
			}),
			"posts": read("posts", func(it *ghostItem) error {
				p, err := readGhostPost(it)
				if err != nil {
					return err
				}
				b := ghostContent(p)
				for _, md := range []string{b.Markdown, b.Teaser} {
					if md != "" && !strings.HasSuffix(md, "\n") {
						t.Fatalf("Markdown %q does not end in a newline", md)
					}
				}
				return nil
			}),
		}, func() {})
		check(err)
	})
}
