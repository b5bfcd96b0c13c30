package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"folio/auth"
	"folio/sqlstore"
)

func runHashPassword(stdin io.Reader, stdout, stderr io.Writer) int {
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "folio: read password:", err)
		return 1
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		fmt.Fprintln(stderr, "folio: empty password (write it on standard input)")
		return 1
	}
	if len(pw) > 72 {
		fmt.Fprintln(stderr, "folio: password longer than 72 bytes, which bcrypt cannot use")
		return 1
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), 12)
	if err != nil {
		fmt.Fprintln(stderr, "folio:", err)
		return 1
	}
	fmt.Fprintln(stdout, string(hash))
	return 0
}

// runResetPassword is folio reset-password [USERNAME]: the operator's way
// back in when a password is lost. It works beside running servers: auth
// keeps nothing about sessions or tokens in memory, so they check the
// database on every request and the revocation holds from the next one.
func runResetPassword(inv *invocation) int {
	fail := func(err error) int {
		fmt.Fprintln(inv.stderr, "folio reset-password:", err)
		return exitFail
	}
	cfg, ok := inv.loadConfig()
	if !ok {
		return exitFail
	}
	ctx := context.Background()
	if err := databaseExists(cfg); err != nil {
		return fail(err)
	}
	db, err := sqlstore.Open(ctx, cfg.DBDriver, cfg.DBDSN)
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	svc, err := auth.Open(ctx, db, auth.Config{
		AdminEnabled:      cfg.AdminEnabled,
		AdminUsername:     cfg.AdminUsername,
		AdminPasswordHash: cfg.AdminPasswordHash,
		SessionSecret:     cfg.SessionSecret,
		SessionTTL:        cfg.SessionTTL,
		BcryptCost:        cfg.bcryptCost,
		Profile:           cfg.Profile,
		Logger:            newLogger(cfg, inv.stderr),
	})
	if err != nil {
		return fail(err)
	}
	// The administrator by id: admin.username may have changed since the
	// running server last renamed the row.
	var u *auth.User
	if len(inv.args) == 0 {
		u, err = svc.UserByID(ctx, svc.AdminID())
	} else {
		u, err = svc.UserByName(ctx, inv.args[0])
	}
	if errors.Is(err, sqlstore.ErrNotFound) {
		return fail(fmt.Errorf("no user named %q", inv.args[0]))
	}
	if err != nil {
		return fail(err)
	}
	switch {
	case u.ID == svc.GuestID():
		return fail(fmt.Errorf("%s is the owner of guest uploads and has no password", u.Username))
	case u.ID == svc.AdminID() && cfg.AdminPasswordHash != "":
		return fail(fmt.Errorf("the password of %s is admin.password_hash in the configuration, which is applied at every start: "+
			"make a new hash with folio hash-password and set admin.password_hash instead (or remove it and run folio reset-password again)", u.Username))
	}
	pw, err := readNewPassword(inv.stdin, inv.stderr)
	if err != nil {
		return fail(err)
	}
	if err := svc.ResetPassword(ctx, u.ID, pw); err != nil {
		return fail(err)
	}
	// The password is set: a failed entry is said, not a failure.
	if err := auth.RecordCommand(ctx, db, "folio reset-password", "folio reset-password "+u.Username, u.ID); err != nil {
		fmt.Fprintln(inv.stderr, "folio reset-password: warning: audit log:", err)
	}
	fmt.Fprintf(inv.stdout, "password of %s set; every session, refresh token and API token of %s is revoked\n", u.Username, u.Username)
	return exitOK
}

// readNewPassword asks twice without echo when stdin is a terminal, and
// reads one line otherwise (a pipe, a file).
func readNewPassword(stdin io.Reader, prompt io.Writer) (string, error) {
	f, ok := stdin.(*os.File)
	if !ok || !isTerminal(f) {
		pw, err := readLine(bufio.NewReader(stdin))
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		if pw == "" {
			return "", errors.New("no password on standard input")
		}
		return pw, auth.ValidatePassword(pw)
	}
	r := bufio.NewReader(f)
	ask := func(question string) (string, error) {
		defer fmt.Fprintln(prompt) // the Enter that was not echoed
		return readWithoutEcho(f, func() (string, error) {
			// Asked only once nothing typed can show.
			fmt.Fprint(prompt, question)
			return readLine(r)
		})
	}
	pw, err := ask("New password: ")
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	if err := auth.ValidatePassword(pw); err != nil {
		return "", err
	}
	again, err := ask("Repeat it: ")
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	if again != pw {
		return "", errors.New("the two passwords differ")
	}
	return pw, nil
}

// readLine reads one line without its end; no input at all reads as an
// empty line.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if errors.Is(err, io.EOF) && line != "" {
		err = nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
