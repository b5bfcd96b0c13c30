package blog

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// The Folio archive (docs/export-import.md#the-folio-archive): a zip of
// posts/<slug>.md and pages/<slug>.md (Markdown with front matter) and
// JSON files for the rest, with manifest.json naming the format.
const (
	archiveFormat  = "folio-blog"
	archiveVersion = 1
)

// ArchiveCounts are how many of each thing an archive holds.
type ArchiveCounts struct {
	Posts       int `json:"posts"`
	Pages       int `json:"pages"`
	Categories  int `json:"categories"`
	Tags        int `json:"tags"`
	Comments    int `json:"comments"`
	FriendLinks int `json:"friend_links"`
}

// archiveManifest is manifest.json.
type archiveManifest struct {
	Format     string        `json:"format"`
	Version    int           `json:"version"`
	ExportedAt time.Time     `json:"exported_at"`
	Counts     ArchiveCounts `json:"counts"`
}

// archiveTerm is an item of categories.json and tags.json.
type archiveTerm struct {
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// archiveComment is an item of comments.json; post is the post's slug.
// The fediverse's fields (docs/export-import.md#comments-from-the-fediverse)
// are left out when empty, so that the archive of a blog that never
// federated is what version 1 always was.
type archiveComment struct {
	// ID is the comment's id in the exporting blog, written only for a
	// comment that has an ap_id: the only comments a reply can answer, so
	// the only ones a reply_to names.
	ID        string    `json:"id,omitempty"`
	Post      string    `json:"post"`
	Author    string    `json:"author"`
	Email     string    `json:"email"`
	Content   string    `json:"content"`
	Status    string    `json:"status"`
	IP        string    `json:"ip"`
	UserAgent string    `json:"user_agent"`
	CreatedAt time.Time `json:"created_at"`
	// APID is the Note's IRI, APActor its author's actor IRI ("" for the
	// administrator's replies, whose Note was the blog's own).
	APID         string `json:"ap_id,omitempty"`
	APActor      string `json:"ap_actor,omitempty"`
	AuthorHandle string `json:"author_handle,omitempty"`
	AuthorURL    string `json:"author_url,omitempty"`
	// ReplyTo is the ID of the comment this one answers.
	ReplyTo string `json:"reply_to,omitempty"`
}

// archiveLink is an item of friend_links.json.
type archiveLink struct {
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Logo        string    `json:"logo"`
	Sort        int       `json:"sort"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Export writes the blog as a Folio archive to w, streaming: each post is
// written as it is read. Live rows only; the settings without secrets
// (ai.api_key). It is not a snapshot across tables: a write made during
// the export may be seen in one file and not in another.
func (b *Blog) Export(ctx context.Context, w io.Writer) (ArchiveCounts, error) {
	bw := bufio.NewWriterSize(w, 32<<10)
	now := b.now().UTC().Truncate(time.Second)
	zw := &archiveWriter{Writer: zip.NewWriter(bw), at: now}
	var counts ArchiveCounts
	steps := []func() error{
		func() error { return b.exportTerms(ctx, zw, categories, &counts.Categories) },
		func() error { return b.exportTerms(ctx, zw, tags, &counts.Tags) },
		func() error { return b.exportPosts(ctx, zw, &counts.Posts) },
		func() error { return b.exportPages(ctx, zw, &counts.Pages) },
		func() error { return b.exportComments(ctx, zw, &counts.Comments) },
		func() error { return b.exportLinks(ctx, zw, &counts.FriendLinks) },
		func() error { return b.exportSettings(ctx, zw) },
		func() error {
			m := archiveManifest{Format: archiveFormat, Version: archiveVersion, ExportedAt: now, Counts: counts}
			return writeJSONEntry(zw, "manifest.json", m)
		},
		zw.Close,
		bw.Flush,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return counts, fmt.Errorf("blog: export: %w", err)
		}
	}
	return counts, nil
}

// archiveWriter writes the archive's files, dated with the export's time
// unless they have their own.
type archiveWriter struct {
	*zip.Writer
	at time.Time
}

// createEntry starts a file of the archive dated modified (zero: the
// export's time).
func createEntry(zw *archiveWriter, name string, modified time.Time) (io.Writer, error) {
	if modified.IsZero() {
		modified = zw.at
	}
	return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
}

func writeJSONEntry(zw *archiveWriter, name string, v any) error {
	f, err := createEntry(zw, name, time.Time{})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonArray writes a JSON array one item a line, as the items come.
type jsonArray struct {
	w io.Writer
	n int
}

func newJSONArray(zw *archiveWriter, name string) (*jsonArray, error) {
	f, err := createEntry(zw, name, time.Time{})
	if err != nil {
		return nil, err
	}
	_, err = io.WriteString(f, "[")
	return &jsonArray{w: f}, err
}

func (a *jsonArray) add(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sep := ",\n  "
	if a.n == 0 {
		sep = "\n  "
	}
	a.n++
	_, err = io.WriteString(a.w, sep+string(raw))
	return err
}

func (a *jsonArray) close() error {
	end := "]\n"
	if a.n > 0 {
		end = "\n]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}

func (b *Blog) exportTerms(ctx context.Context, zw *archiveWriter, table termTable, n *int) error {
	arr, err := newJSONArray(zw, string(table)+".json")
	if err != nil {
		return err
	}
	err = b.eachTerm(ctx, table, func(t Term) error {
		*n++
		return arr.add(archiveTerm{Name: t.Name, Slug: t.Slug, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
	})
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return arr.close()
}

// postFile is a post's Markdown file: front matter, then the content.
func postFile(p *Post) []byte {
	fm := newFMWriter()
	fm.head(p.Title, p.Slug, p.Status, p.PublishedAt, &p.CreatedAt, &p.UpdatedAt)
	cat := ""
	if p.Category != nil {
		cat = p.Category.Slug
	}
	fm.str("category", cat)
	tagSlugs := make([]string, len(p.Tags))
	for i, t := range p.Tags {
		tagSlugs[i] = t.Slug
	}
	fm.list("tags", tagSlugs)
	fm.str("summary", p.Summary)
	fm.str("summary_source", p.SummarySource)
	fm.str("cover_image", p.CoverImage)
	fm.boolean("show_comments", p.ShowComments)
	return fm.finish(p.ContentMarkdown)
}

func (b *Blog) exportPosts(ctx context.Context, zw *archiveWriter, n *int) error {
	err := b.eachPostBatch(ctx, func(batch []*Post) error {
		for _, p := range batch {
			f, err := createEntry(zw, "posts/"+p.Slug+".md", p.UpdatedAt)
			if err != nil {
				return err
			}
			if _, err := f.Write(postFile(p)); err != nil {
				return err
			}
			*n++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("posts: %w", err)
	}
	return nil
}

// pageFile is a page's Markdown file.
func pageFile(p *Page) []byte {
	fm := newFMWriter()
	fm.head(p.Title, p.Slug, p.Status, p.PublishedAt, &p.CreatedAt, &p.UpdatedAt)
	fm.integer("sort_order", p.SortOrder)
	fm.boolean("show_in_nav", p.ShowInNav)
	fm.str("template", p.Template)
	fm.str("config", p.Config)
	return fm.finish(p.ContentMarkdown)
}

func (b *Blog) exportPages(ctx context.Context, zw *archiveWriter, n *int) error {
	err := b.eachPage(ctx, func(p *Page) error {
		f, err := createEntry(zw, "pages/"+p.Slug+".md", p.UpdatedAt)
		if err != nil {
			return err
		}
		if _, err := f.Write(pageFile(p)); err != nil {
			return err
		}
		*n++
		return nil
	})
	if err != nil {
		return fmt.Errorf("pages: %w", err)
	}
	return nil
}

func (b *Blog) exportComments(ctx context.Context, zw *archiveWriter, n *int) error {
	arr, err := newJSONArray(zw, "comments.json")
	if err != nil {
		return err
	}
	err = b.eachComment(ctx, func(c archiveComment) error {
		*n++
		return arr.add(c)
	})
	if err != nil {
		return fmt.Errorf("comments: %w", err)
	}
	return arr.close()
}

func (b *Blog) exportLinks(ctx context.Context, zw *archiveWriter, n *int) error {
	arr, err := newJSONArray(zw, "friend_links.json")
	if err != nil {
		return err
	}
	err = b.eachLink(ctx, func(l *FriendLink) error {
		*n++
		return arr.add(archiveLink{Name: l.Name, URL: l.URL, Description: l.Description,
			Logo: l.Logo, Sort: l.Sort, Status: l.Status, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt})
	})
	if err != nil {
		return fmt.Errorf("friend links: %w", err)
	}
	return arr.close()
}

// archiveSettings is settings.json: the blog's groups as the settings API
// shows them, without ai.api_key, which is a secret of this installation.
type archiveSettings struct {
	Site   *SiteSettings              `json:"site,omitempty"`
	Post   *PostSettings              `json:"post,omitempty"`
	Render *RenderSettings            `json:"render,omitempty"`
	AI     map[string]json.RawMessage `json:"ai,omitempty"`
}

func (b *Blog) exportSettings(ctx context.Context, zw *archiveWriter) error {
	s := b.settings.Get(ctx)
	raw, err := json.Marshal(s.AI)
	if err != nil {
		return err
	}
	var ai map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ai); err != nil {
		return err
	}
	delete(ai, "api_key")
	return writeJSONEntry(zw, "settings.json", archiveSettings{Site: &s.Site, Post: &s.Post, Render: &s.Render, AI: ai})
}
