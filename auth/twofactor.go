package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"folio/sqlstore"
)

// Two-factor sign-in: an optional TOTP per account with one-time recovery
// codes (docs/api.md#identity). API tokens are unaffected by it; a
// password login (access tokens, sessions) needs the second factor too.

// Errors of two-factor sign-in.
var (
	// ErrOTPRequired: the password was right and the account has TOTP on,
	// but no code came with it.
	ErrOTPRequired = errors.New("two-factor code required")
	// ErrInvalidOTP: a wrong, replayed or used code.
	ErrInvalidOTP = errors.New("invalid two-factor code")
	// ErrTOTPEnabled: enrolment asked for while TOTP is already on; it
	// must be turned off (with the password) first.
	ErrTOTPEnabled = errors.New("two-factor sign-in is already on")
	// ErrTOTPNotEnabled: recovery codes asked for while TOTP is off.
	ErrTOTPNotEnabled = errors.New("two-factor sign-in is off")
)

// TOTPIssuer names Folio in authenticator apps.
const TOTPIssuer = "Folio"

// Recovery codes: ten of ten letters from the lower-case base32 alphabet
// (50 random bits each), shown as "abcde-fghij".
const (
	recoveryCount    = 10
	recoveryLen      = 10
	recoveryAlphabet = "abcdefghijklmnopqrstuvwxyz234567"
)

// LoginTicketTTL is how long the password step of a two-step login stays
// good for its code step.
const LoginTicketTTL = 5 * time.Minute

// totpState is a user's two-factor columns.
type totpState struct {
	username string
	role     string
	secret   string
	pending  string
	enabled  bool
	lastStep int64
}

func (s *Service) loadTOTP(ctx context.Context, userID string) (*totpState, error) {
	if !sqlstore.ValidID(userID) {
		return nil, sqlstore.ErrNotFound
	}
	var st totpState
	// The write pool: a step accepted a moment ago must be seen.
	err := s.db.QueryRowWrite(ctx, "SELECT username, role, totp_secret, totp_pending, totp_enabled, totp_last_step FROM users WHERE id = $1", userID).
		Scan(&st.username, &st.role, &st.secret, &st.pending, &st.enabled, &st.lastStep)
	if err != nil {
		return nil, fmt.Errorf("auth: load two-factor state: %w", err)
	}
	return &st, nil
}

// BeginTOTP starts enrolment: it makes a pending secret (replacing an
// older pending one) and returns it in base32 with its otpauth URI.
// TOTP stays off until EnableTOTP confirms a code.
func (s *Service) BeginTOTP(ctx context.Context, userID string) (secret string, uri string, err error) {
	st, err := s.loadTOTP(ctx, userID)
	if err != nil {
		return "", "", err
	}
	if st.role == RoleGuest {
		return "", "", ErrProtectedUser
	}
	if st.enabled {
		return "", "", ErrTOTPEnabled
	}
	secret = newTOTPSecret()
	res, err := s.db.Exec(ctx, "UPDATE users SET totp_pending = $1, updated_at = $2 WHERE id = $3 AND NOT totp_enabled",
		secret, sqlstore.FromTime(s.now()), userID)
	if err != nil {
		return "", "", fmt.Errorf("auth: begin two-factor: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", "", ErrTOTPEnabled
	}
	key, _ := decodeTOTPSecret(secret)
	return secret, OTPAuthURI(TOTPIssuer, st.username, key), nil
}

// PendingTOTP returns the secret of an enrolment in progress; ok is false
// when there is none (or TOTP is already on).
func (s *Service) PendingTOTP(ctx context.Context, userID string) (secret, uri string, ok bool, err error) {
	st, err := s.loadTOTP(ctx, userID)
	if err != nil {
		return "", "", false, err
	}
	key, valid := decodeTOTPSecret(st.pending)
	if st.enabled || !valid {
		return "", "", false, nil
	}
	return st.pending, OTPAuthURI(TOTPIssuer, st.username, key), true, nil
}

// EnableTOTP turns TOTP on when code matches the pending secret
// (ErrInvalidOTP otherwise) and returns ten fresh recovery codes, which
// are shown once and stored only hashed.
func (s *Service) EnableTOTP(ctx context.Context, userID, code string) (recovery []string, err error) {
	st, err := s.loadTOTP(ctx, userID)
	if err != nil {
		return nil, err
	}
	if st.enabled {
		return nil, ErrTOTPEnabled
	}
	key, ok := decodeTOTPSecret(st.pending)
	if !ok {
		return nil, ErrInvalidOTP
	}
	step, ok := verifyTOTP(key, normalizeOTP(code), s.now(), 0)
	if !ok {
		return nil, ErrInvalidOTP
	}
	err = s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		// The enrolment code's step counts as used: it cannot sign in.
		res, err := tx.Exec(ctx, `UPDATE users SET totp_secret = totp_pending, totp_pending = '', totp_enabled = $1,
			totp_last_step = $2, updated_at = $3 WHERE id = $4 AND totp_pending = $5 AND NOT totp_enabled`,
			true, step, sqlstore.FromTime(s.now()), userID, st.pending)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrInvalidOTP // another enrolment replaced the secret meanwhile
		}
		recovery, err = s.replaceRecoveryCodes(ctx, tx, userID)
		return err
	})
	if errors.Is(err, ErrInvalidOTP) {
		return nil, ErrInvalidOTP
	}
	if err != nil {
		return nil, fmt.Errorf("auth: enable two-factor: %w", err)
	}
	return recovery, nil
}

// DisableTOTP turns TOTP off after checking the account's password
// (ErrInvalidCredentials), and removes the secret and the recovery codes.
func (s *Service) DisableTOTP(ctx context.Context, userID, password string) error {
	if err := s.checkUserPassword(ctx, userID, password); err != nil {
		return err
	}
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET totp_secret = '', totp_pending = '', totp_enabled = $1, totp_last_step = 0,
			updated_at = $2 WHERE id = $3`, false, sqlstore.FromTime(s.now()), userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM recovery_codes WHERE user_id = $1", userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("auth: disable two-factor: %w", err)
	}
	return nil
}

// TOTPEnabled reports whether the user signs in with a second factor.
func (s *Service) TOTPEnabled(ctx context.Context, userID string) (bool, error) {
	st, err := s.loadTOTP(ctx, userID)
	if err != nil {
		return false, err
	}
	return st.enabled, nil
}

// RecoveryCodesLeft counts the user's unused recovery codes.
func (s *Service) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	var n int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL", userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("auth: count recovery codes: %w", err)
	}
	return n, nil
}

// RegenerateRecoveryCodes replaces all of the user's recovery codes with
// ten new ones after checking the password (ErrInvalidCredentials); TOTP
// must be on (ErrTOTPNotEnabled).
func (s *Service) RegenerateRecoveryCodes(ctx context.Context, userID, password string) ([]string, error) {
	if err := s.checkUserPassword(ctx, userID, password); err != nil {
		return nil, err
	}
	var codes []string
	err := s.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		var enabled bool
		if err := tx.QueryRow(ctx, "SELECT totp_enabled FROM users WHERE id = $1", userID).Scan(&enabled); err != nil {
			return err
		}
		if !enabled {
			return ErrTOTPNotEnabled
		}
		var err error
		codes, err = s.replaceRecoveryCodes(ctx, tx, userID)
		return err
	})
	if errors.Is(err, ErrTOTPNotEnabled) {
		return nil, ErrTOTPNotEnabled
	}
	if err != nil {
		return nil, fmt.Errorf("auth: regenerate recovery codes: %w", err)
	}
	return codes, nil
}

// checkSecondFactor is CheckSecondFactor's check, without the limit.
func (s *Service) checkSecondFactor(ctx context.Context, userID, code string) error {
	st, err := s.loadTOTP(ctx, userID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return ErrInvalidOTP
	}
	if err != nil {
		return err
	}
	key, ok := decodeTOTPSecret(st.secret)
	if !st.enabled || !ok {
		return ErrInvalidOTP
	}
	now := s.now()
	if c := normalizeOTP(code); isTOTPCode(c) {
		step, ok := verifyTOTP(key, c, now, st.lastStep)
		if !ok {
			return ErrInvalidOTP
		}
		// Conditional, so that of two requests racing with the same code
		// only one wins.
		res, err := s.db.Exec(ctx, "UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_secret = $3 AND totp_last_step < $1",
			step, userID, st.secret)
		if err != nil {
			return fmt.Errorf("auth: record two-factor step: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrInvalidOTP
		}
		return nil
	}
	rc, ok := normalizeRecoveryCode(code)
	if !ok {
		return ErrInvalidOTP
	}
	res, err := s.db.Exec(ctx, "UPDATE recovery_codes SET used_at = $1 WHERE user_id = $2 AND hash = $3 AND used_at IS NULL",
		sqlstore.FromTime(now), userID, recoveryHash(userID, rc))
	if err != nil {
		return fmt.Errorf("auth: use recovery code: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrInvalidOTP
	}
	return nil
}

// CheckLogin is CheckPassword followed, for an account with TOTP on, by
// the second factor: ErrOTPRequired when otp is empty, ErrInvalidOTP when
// it is wrong. The errors of CheckPassword come first, so a wrong password
// never reveals whether the account has TOTP.
func (s *Service) CheckLogin(ctx context.Context, login, password, otp string) (*User, error) {
	u, err := s.CheckPassword(ctx, login, password)
	if err != nil {
		return nil, err
	}
	on, err := s.TOTPEnabled(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if !on {
		return u, nil
	}
	if strings.TrimSpace(otp) == "" {
		return nil, ErrOTPRequired
	}
	if err := s.CheckSecondFactor(ctx, u.ID, otp); err != nil {
		return nil, err
	}
	return u, nil
}

// NewLoginTicket signs a short-lived ticket saying that userID passed the
// password step of a login and owes the second factor:
// "lt1.<user id>.<expiry unix>.<mac>". Its key serves no other purpose,
// so no other signed value can pass for one.
func (s *Service) NewLoginTicket(userID string) string {
	return s.ticketSigner().seal(ticketPrefix+userID, s.now().Add(LoginTicketTTL).Unix())
}

// ParseLoginTicket returns the user id of a valid, unexpired ticket.
func (s *Service) ParseLoginTicket(ticket string) (userID string, ok bool) {
	payload, ok := s.ticketSigner().openAt(ticket, s.now())
	if !ok {
		return "", false
	}
	return strings.TrimPrefix(payload, ticketPrefix), true
}

// replaceRecoveryCodes deletes the user's codes and stores ten new ones.
func (s *Service) replaceRecoveryCodes(ctx context.Context, tx *sqlstore.Tx, userID string) ([]string, error) {
	if _, err := tx.Exec(ctx, "DELETE FROM recovery_codes WHERE user_id = $1", userID); err != nil {
		return nil, err
	}
	now := sqlstore.FromTime(s.now())
	codes := make([]string, recoveryCount)
	for i := range codes {
		c := newRecoveryCode()
		norm, _ := normalizeRecoveryCode(c)
		if _, err := tx.Exec(ctx, "INSERT INTO recovery_codes (id, user_id, hash, created_at) VALUES ($1, $2, $3, $4)",
			sqlstore.NewID(), userID, recoveryHash(userID, norm), now); err != nil {
			return nil, err
		}
		codes[i] = c
	}
	return codes, nil
}

func newRecoveryCode() string {
	b := make([]byte, recoveryLen)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = recoveryAlphabet[b[i]&31]
	}
	return string(b[:5]) + "-" + string(b[5:])
}

// normalizeRecoveryCode lower-cases a typed code and drops spaces and
// dashes; ok is false when what is left cannot be a code.
func normalizeRecoveryCode(code string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(code) {
		switch {
		case r == ' ' || r == '-' || r == '\t':
		case r < 128 && strings.IndexByte(recoveryAlphabet, byte(r)) >= 0:
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	if b.Len() != recoveryLen {
		return "", false
	}
	return b.String(), true
}

// recoveryHash is how a recovery code is stored: SHA-256 of the code with
// its user's id, so that one computed table does not serve every account.
func recoveryHash(userID, code string) string { return hashToken(userID + ":" + code) }

// checkUserPassword checks the password of the user with id userID, in
// constant time whether or not the user exists.
func (s *Service) checkUserPassword(ctx context.Context, userID, password string) error {
	var hash string
	var err error
	if sqlstore.ValidID(userID) {
		err = s.db.QueryRow(ctx, "SELECT password_hash FROM users WHERE id = $1 AND role <> 'guest'", userID).Scan(&hash)
	} else {
		err = sqlstore.ErrNotFound
	}
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return fmt.Errorf("auth: load password: %w", err)
	}
	if err != nil || hash == "" {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password))
		return ErrInvalidCredentials
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return ErrInvalidCredentials
	}
	return nil
}
