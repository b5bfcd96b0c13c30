package filehost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"folio/sqlstore"
)

// shareColumns matches scanShare.
const shareColumns = `s.id, s.file_id, s.token, s.expires_at, s.max_views, s.views, s.password_hash, s.created_at, s.guesses, s.guess_window`

// shareRow receives the shareColumns of a row.
type shareRow struct {
	sh      share
	expires *int64
	created int64
	hash    *string
	window  *int64
}

func (r *shareRow) dest() []any {
	return []any{&r.sh.ID, &r.sh.fileID, &r.sh.token, &r.expires, &r.sh.MaxViews, &r.sh.Views, &r.hash, &r.created,
		&r.sh.guesses, &r.window}
}

func (r *shareRow) share() *share {
	sh := r.sh
	sh.ExpiresAt = sqlstore.NullTime(r.expires)
	sh.CreatedAt = sqlstore.Time(r.created)
	sh.guessWindow = sqlstore.NullTime(r.window)
	if r.hash != nil {
		sh.passwordHash, sh.HasPassword = *r.hash, true
	}
	return &sh
}

func scanShare(row scanner) (*share, error) {
	var r shareRow
	if err := row.Scan(r.dest()...); err != nil {
		return nil, err
	}
	return r.share(), nil
}

// insertShare stores a new share link of a file; a file deleted meanwhile
// is sqlstore.ErrNotFound.
func (s *Service) insertShare(ctx context.Context, sh *share) error {
	var expires *int64
	if sh.ExpiresAt != nil {
		v := sqlstore.FromTime(*sh.ExpiresAt)
		expires = &v
	}
	var hash *string
	if sh.HasPassword {
		hash = &sh.passwordHash
	}
	_, err := s.db.Exec(ctx, `INSERT INTO shares (id, file_id, token, expires_at, max_views, views, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, 0, $6, $7)`,
		sh.ID, sh.fileID, sh.token, expires, sh.MaxViews, hash, sqlstore.FromTime(sh.CreatedAt))
	if errors.Is(err, sqlstore.ErrForeignKey) {
		return sqlstore.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("filehost: create share link: %w", err)
	}
	return nil
}

// listShares returns a file's share links, newest first.
func (s *Service) listShares(ctx context.Context, fileID string) ([]*share, error) {
	rows, err := s.db.Query(ctx, "SELECT "+shareColumns+" FROM shares s WHERE s.file_id = $1 ORDER BY s.created_at DESC, s.id DESC", fileID)
	if err != nil {
		return nil, fmt.Errorf("filehost: list share links: %w", err)
	}
	defer rows.Close()
	out := []*share{}
	for rows.Next() {
		sh, err := scanShare(rows)
		if err != nil {
			return nil, fmt.Errorf("filehost: list share links: %w", err)
		}
		out = append(out, sh)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filehost: list share links: %w", err)
	}
	return out, nil
}

// deleteShare revokes a share link of a file; sqlstore.ErrNotFound when the
// file has no such link.
func (s *Service) deleteShare(ctx context.Context, fileID, shareID string) error {
	res, err := s.db.Exec(ctx, "DELETE FROM shares WHERE id = $1 AND file_id = $2", shareID, fileID)
	if err != nil {
		return fmt.Errorf("filehost: revoke share link: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("filehost: revoke share link: %w", err)
	} else if n == 0 {
		return sqlstore.ErrNotFound
	}
	return nil
}

// openShare finds the link of a token while it is not revoked and its file
// is live. It may have expired: the caller says so (findShare), since a
// visitor with an expired link deserves to hear that rather than "not
// found". Whether views are left is countView's to say. Nil when there is
// none.
func (s *Service) openShare(ctx context.Context, token string) (*share, *fileRecord, error) {
	var r shareRow
	f, err := scanFile(withTail(s.db.QueryRow(ctx, "SELECT "+fileColumns+", "+shareColumns+fileFrom+
		" JOIN shares s ON s.file_id = f.id WHERE s.token = $1 AND "+liveFile("$2"),
		token, sqlstore.FromTime(s.now())), r.dest()...))
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("filehost: open share link: %w", err)
	}
	return r.share(), f, nil
}

// countView counts one view of an open link, exactly across processes: one
// statement takes a view only while one is left, so of any number of
// visitors at once no more than max_views get the page.
func (s *Service) countView(ctx context.Context, shareID string) (bool, error) {
	res, err := s.db.Exec(ctx, `UPDATE shares SET views = views + 1
		WHERE id = $1 AND (max_views IS NULL OR views < max_views) AND (expires_at IS NULL OR expires_at > $2)`,
		shareID, sqlstore.FromTime(s.now()))
	if err != nil {
		return false, fmt.Errorf("filehost: count a view: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("filehost: count a view: %w", err)
	}
	return n == 1, nil
}

// takeGuess takes one of a link's password answers for checking. One
// statement counts it only while the window has guesses left (a window
// that has ended starts again at now), so of any number of answers at once,
// in any number of processes, no more than shareGuesses a window reach
// bcrypt. ok is false when they are spent; until is then when the window
// ends. window identifies the window the answer was counted in, for
// giveGuessBack. sqlstore.ErrNotFound when the link is gone.
func (s *Service) takeGuess(ctx context.Context, shareID string) (window int64, ok bool, until time.Time, err error) {
	now := s.now()
	ended := sqlstore.FromTime(now.Add(-shareGuessWindow))
	err = s.db.QueryRowWrite(ctx, `UPDATE shares SET
			guesses = CASE WHEN guess_window IS NULL OR guess_window <= $2 THEN 1 ELSE guesses + 1 END,
			guess_window = CASE WHEN guess_window IS NULL OR guess_window <= $2 THEN $3 ELSE guess_window END
		WHERE id = $1 AND (guess_window IS NULL OR guess_window <= $2 OR guesses < $4)
		RETURNING guess_window`, shareID, ended, sqlstore.FromTime(now), shareGuesses).Scan(&window)
	if err == nil {
		return window, true, time.Time{}, nil
	}
	if !errors.Is(err, sqlstore.ErrNotFound) {
		return 0, false, time.Time{}, fmt.Errorf("filehost: count a password answer: %w", err)
	}
	var start *int64
	if err := s.db.QueryRow(ctx, "SELECT guess_window FROM shares WHERE id = $1", shareID).Scan(&start); err != nil {
		if errors.Is(err, sqlstore.ErrNotFound) {
			return 0, false, time.Time{}, err
		}
		return 0, false, time.Time{}, fmt.Errorf("filehost: count a password answer: %w", err)
	}
	if start == nil { // the window cannot be spent without a start
		return 0, false, now, nil
	}
	return 0, false, sqlstore.Time(*start).Add(shareGuessWindow), nil
}

// giveGuessBack uncounts a right answer that takeGuess counted in window,
// so that the people who know the password never spend the link's
// guesses. An answer counted in a window that has since ended is gone
// with it.
func (s *Service) giveGuessBack(ctx context.Context, shareID string, window int64) error {
	if _, err := s.db.Exec(ctx, "UPDATE shares SET guesses = guesses - 1 WHERE id = $1 AND guess_window = $2 AND guesses > 0",
		shareID, window); err != nil {
		return fmt.Errorf("filehost: uncount a right password: %w", err)
	}
	return nil
}
