package blog

import (
	"context"
	"fmt"
	"time"

	"folio/sqlstore"
)

// mediaLink is the link of the copy an earlier import made of the file at
// source; sqlstore.ErrNotFound when none did.
func mediaLink(ctx context.Context, q sqlstore.Querier, source string) (string, error) {
	var link string
	err := q.QueryRow(ctx, "SELECT link FROM import_media WHERE source_url = $1", source).Scan(&link)
	return link, err
}

// putMediaLink remembers that the file at source is now at link.
func putMediaLink(ctx context.Context, q sqlstore.Querier, source, link string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO import_media (source_url, link, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (source_url) DO UPDATE SET link = excluded.link, created_at = excluded.created_at`,
		source, link, sqlstore.FromTime(at))
	if err != nil {
		return fmt.Errorf("blog: remember imported file: %w", err)
	}
	return nil
}
