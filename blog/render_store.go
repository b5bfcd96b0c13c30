package blog

import (
	"context"
	"encoding/json"
	"fmt"
)

// renderVersion is the version of what the renderer makes of Markdown,
// stored with each post's and page's HTML. It goes up when stored HTML
// should change without its author saving again: 1, own images carry a
// srcset (docs/design.md#classic-site); 2, fenced code is highlighted,
// aligned table cells carry a class instead of a style
// (docs/console.md#syntax-highlighting-and-tables) and derived summaries
// are made of prose only (docs/blog-api.md#summaries).
const renderVersion = 2

// rerender renders again the live posts and pages whose HTML an older
// renderer made, as the blog starts. A row saved meanwhile is left as its
// save wrote it (the update matches the Markdown it rendered), so several
// processes starting at once only repeat each other's work. A row that
// fails to render keeps its HTML: it is still what readers saw before.
func (b *Blog) rerender(ctx context.Context) error {
	for _, table := range []string{"posts", "pages"} {
		rows, err := b.staleRenders(ctx, table)
		if err != nil {
			return err
		}
		summaryLength := b.settings.Get(ctx).Post.SummaryLength
		for _, row := range rows {
			out, err := b.render(ctx, row.markdown)
			if err != nil {
				b.logger.Warn("blog: render again", "table", table, "id", row.id, "err", err)
				continue
			}
			if err := b.storeRender(ctx, table, row, out, excerpt(out.Plain, summaryLength)); err != nil {
				return err
			}
		}
		if len(rows) > 0 {
			b.logger.Info("blog: rendered again", "table", table, "rows", len(rows), "version", renderVersion)
			if table == "posts" {
				// Lists and feeds show the summaries just derived again.
				if err := bumpPostsVersion(ctx, b.db); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// staleRender is a post or page whose HTML an older renderer made.
type staleRender struct{ id, markdown string }

// staleRenders lists the live rows of table ("posts" or "pages") rendered
// by an older version.
func (b *Blog) staleRenders(ctx context.Context, table string) ([]staleRender, error) {
	q := `SELECT id, content_markdown FROM posts WHERE render_version < $1 AND deleted_at IS NULL`
	if table == "pages" {
		q = `SELECT id, content_markdown FROM pages WHERE render_version < $1 AND deleted_at IS NULL`
	}
	rows, err := b.db.Query(ctx, q, renderVersion)
	if err != nil {
		return nil, fmt.Errorf("blog: stale renders: %w", err)
	}
	defer rows.Close()
	var out []staleRender
	for rows.Next() {
		var r staleRender
		if err := rows.Scan(&r.id, &r.markdown); err != nil {
			return nil, fmt.Errorf("blog: stale renders: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blog: stale renders: %w", err)
	}
	return out, nil
}

// storeRender writes a row's new HTML (and a post's table of contents and,
// when it was derived, its summary) unless the row was saved since it was
// read. A summary written by hand or by the AI stays.
func (b *Blog) storeRender(ctx context.Context, table string, row staleRender, out rendered, summary string) error {
	var err error
	if table == "pages" {
		_, err = b.db.Exec(ctx, `UPDATE pages SET content_html = $3, render_version = $4
			WHERE id = $1 AND content_markdown = $2 AND render_version < $4`, row.id, row.markdown, out.HTML, renderVersion)
	} else {
		toc, _ := json.Marshal(out.TOC) // a slice of plain structs
		_, err = b.db.Exec(ctx, `UPDATE posts SET content_html = $3, toc = $4, render_version = $5,
			summary = CASE WHEN summary_source = $6 THEN $7 ELSE summary END
			WHERE id = $1 AND content_markdown = $2 AND render_version < $5`,
			row.id, row.markdown, out.HTML, string(toc), renderVersion, summaryAuto, summary)
	}
	if err != nil {
		return fmt.Errorf("blog: store render: %w", err)
	}
	return nil
}
