package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// The second factor's limit per account (docs/api.md#identity): every
// path that checks a code or a recovery code after a right password (the
// file host's API login, the blog's admin login, the console's code step)
// goes through CheckSecondFactor, which counts wrong ones in the users row.
// The row is shared by every process and every client address, so neither
// many addresses nor many processes give an attacker more guesses.
const (
	// FactorMaxFailures wrong codes within FactorWindow lock the account's
	// second factor for FactorLockTime. FactorLockTime must not be shorter
	// than FactorWindow: a lock then always ends after its window, so the
	// first attempt after a lock starts a new count.
	FactorMaxFailures = 5
	FactorWindow      = 15 * time.Minute
	FactorLockTime    = 15 * time.Minute
)

// Audit actions of the limit: an account's second factor locked (the
// entry's resource_id is the lock's end in RFC 3339), and that lock ended
// (written by the first attempt after the end, with the same resource_id).
const (
	AuditFactorLocked   = "factor_locked"
	AuditFactorUnlocked = "factor_unlocked"
)

// ErrFactorLocked: too many wrong second factors for the account; no code,
// not even a right one, is checked until the lock ends. Its errors are
// *FactorLockedError, which say when.
var ErrFactorLocked = errors.New("too many wrong two-factor codes: try again later")

// FactorLockedError is ErrFactorLocked with the lock's end.
type FactorLockedError struct {
	Until time.Time
	// Wait is the time from the refused attempt to Until.
	Wait time.Duration
}

func (e *FactorLockedError) Error() string        { return ErrFactorLocked.Error() }
func (e *FactorLockedError) Is(target error) bool { return target == ErrFactorLocked }

// RetryAfter is Wait in whole seconds, at least 1: the Retry-After of a 429.
func (e *FactorLockedError) RetryAfter() int {
	return max(1, int(math.Ceil(e.Wait.Seconds())))
}

// FactorLockAnswer is the 429 to answer when err is a second-factor
// lock, with Retry-After set on w to the lock's end; nil for any other
// error. msg replaces the default message when not empty.
func FactorLockAnswer(w http.ResponseWriter, err error, msg string) *httpx.Error {
	var le *FactorLockedError
	if !errors.As(err, &le) {
		return nil
	}
	if msg == "" {
		msg = ErrFactorLocked.Error()
	}
	w.Header().Set("Retry-After", strconv.Itoa(le.RetryAfter()))
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: 42900, Msg: msg}
}

// CheckSecondFactor accepts a current TOTP code not used before or an
// unused recovery code, which it spends; anything else, and any code for
// an account without TOTP, is ErrInvalidOTP. Every check takes one of the
// account's attempts first, in one conditional UPDATE, so concurrent
// guesses cannot overrun the limit; while the account is locked nothing is
// checked and the answer is a *FactorLockedError. A right code clears the
// count.
func (s *Service) CheckSecondFactor(ctx context.Context, userID, code string) error {
	if !sqlstore.ValidID(userID) {
		return ErrInvalidOTP
	}
	locking, until, err := s.takeFactorAttempt(ctx, userID)
	if err != nil {
		return err
	}
	err = s.checkSecondFactor(ctx, userID, code)
	switch {
	case err == nil:
		if _, cerr := s.db.Exec(ctx, "UPDATE users SET factor_failures = 0, factor_window_start = 0, factor_locked_until = 0 WHERE id = $1",
			userID); cerr != nil {
			return fmt.Errorf("auth: clear two-factor failures: %w", cerr)
		}
	case errors.Is(err, ErrInvalidOTP):
		s.noteFailedFactor(ctx, userID)
		if locking {
			s.auditFactorLock(ctx, userID, AuditFactorLocked, until)
		}
	}
	return err
}

// takeFactorAttempt counts one attempt against the account before its code
// is checked; locking is true when this attempt is the one that reaches the
// limit, which locks the account until then unless the code is right. A
// locked account gives a *FactorLockedError.
func (s *Service) takeFactorAttempt(ctx context.Context, userID string) (locking bool, until time.Time, err error) {
	now := s.now()
	if err := s.endFactorLock(ctx, userID, now); err != nil {
		return false, time.Time{}, err
	}
	nowT := sqlstore.FromTime(now)
	// A window older than FactorWindow starts over at this attempt.
	var failures int
	var lockedUntil int64
	err = s.db.QueryRowWrite(ctx, `UPDATE users SET
			factor_failures = CASE WHEN factor_window_start <= $2 THEN 1 ELSE factor_failures + 1 END,
			factor_locked_until = CASE WHEN (CASE WHEN factor_window_start <= $2 THEN 1 ELSE factor_failures + 1 END) >= $3
				THEN $4 ELSE factor_locked_until END,
			factor_window_start = CASE WHEN factor_window_start <= $2 THEN $1 ELSE factor_window_start END
		WHERE id = $5 AND factor_locked_until <= $1
		RETURNING factor_failures, factor_locked_until`,
		nowT, sqlstore.FromTime(now.Add(-FactorWindow)), FactorMaxFailures,
		sqlstore.FromTime(now.Add(FactorLockTime)), userID).Scan(&failures, &lockedUntil)
	if errors.Is(err, sqlstore.ErrNotFound) {
		// Locked, or no such account; a lock that ended in between
		// leaves this one attempt unchecked.
		if err := s.FactorLocked(ctx, userID); err != nil {
			return false, time.Time{}, err
		}
		return false, time.Time{}, ErrInvalidOTP
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("auth: count two-factor attempt: %w", err)
	}
	return failures >= FactorMaxFailures, sqlstore.Time(lockedUntil), nil
}

// endFactorLock clears a lock that has ended and audits its end; of many
// processes meeting it at once, the one whose conditional UPDATE wins
// writes the entry.
func (s *Service) endFactorLock(ctx context.Context, userID string, now time.Time) error {
	var until int64
	err := s.db.QueryRowWrite(ctx, "SELECT factor_locked_until FROM users WHERE id = $1", userID).Scan(&until)
	if errors.Is(err, sqlstore.ErrNotFound) || (err == nil && (until == 0 || until > sqlstore.FromTime(now))) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: read two-factor lock: %w", err)
	}
	res, err := s.db.Exec(ctx, "UPDATE users SET factor_locked_until = 0 WHERE id = $1 AND factor_locked_until = $2", userID, until)
	if err != nil {
		return fmt.Errorf("auth: end two-factor lock: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		s.auditFactorLock(ctx, userID, AuditFactorUnlocked, sqlstore.Time(until))
	}
	return nil
}

// FactorLocked is a *FactorLockedError while the account's second factor
// is locked, and nil otherwise; a sign-in form asks it at the password
// step, so as not to ask for a code it would refuse.
func (s *Service) FactorLocked(ctx context.Context, userID string) error {
	var until int64
	err := s.db.QueryRowWrite(ctx, "SELECT factor_locked_until FROM users WHERE id = $1", userID).Scan(&until)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("auth: read two-factor lock: %w", err)
	}
	now := s.now()
	if end := sqlstore.Time(until); end.After(now) {
		return &FactorLockedError{Until: end, Wait: end.Sub(now)}
	}
	return nil
}
