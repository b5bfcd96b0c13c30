package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"folio/httpx"
	"folio/sqlstore"
)

// The audit log (docs/observability.md#audit-log) records every unsafe
// request (POST, PUT, PATCH, DELETE) that an administrator's credentials
// authenticated, after the handler ran, with its status; and the sign-ins
// of administrator accounts, failed ones included. One middleware, Audit,
// does the recording: the middlewares that resolve an identity only note
// it in the request's audit note, which Audit placed in the context. Safe
// requests carry no note and cost a method comparison. Bodies are never
// read, so no password or content reaches the log.

// Audit actions.
const (
	AuditWrite       = "write"
	AuditLogin       = "login"
	AuditLoginFailed = "login_failed"
	AuditLogout      = "logout"
	// AuditCommand is a write made by a folio command on the server's host
	// (reset-password, import): the operator has no account, so the entry
	// names the command, and its subject in ResourceID.
	AuditCommand = "command"
)

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID         string    `json:"id"`
	At         time.Time `json:"at"`
	UserID     string    `json:"user_id"`
	Username   string    `json:"username"`
	Via        string    `json:"via"`
	Action     string    `json:"action"`
	Method     string    `json:"method"`
	Route      string    `json:"route"`
	Path       string    `json:"path"`
	ResourceID string    `json:"resource_id"`
	Status     int       `json:"status"`
	ClientIP   string    `json:"client_ip"`
}

// auditNote is what the request's handlers learned for the audit log.
type auditNote struct {
	idn      *Identity
	route    string // the matched pattern's path, when idn was noted
	resource string
	login    *loginNote
	// plainUser is a signing-in account known not to be an
	// administrator, so that its session needs no look-up.
	plainUser string
	// extra are entries about an account rather than the request (a
	// second-factor lock), written after the request's own.
	extra []*AuditEntry
	// req is the request as the middleware saw it, for an entry written
	// in a handler's transaction (AuditInTx).
	req *http.Request
	// written: the request's own entry was committed by the handler's
	// transaction, so the middleware writes only the extra ones.
	written bool
}

// loginNote is a sign-in attempt on an administrator account.
type loginNote struct {
	userID, username string
	failed, signedIn bool
}

type auditKey struct{}

func noteOf(ctx context.Context) *auditNote {
	n, _ := ctx.Value(auditKey{}).(*auditNote)
	return n
}

// unsafeMethod reports whether m changes something.
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// Audit records the request in the audit log when it is a write by an
// administrator or a sign-in on an administrator account. It must run
// inside the middleware that resolves the client IP. A failure to record
// is logged; the answer has gone out by then and is never changed.
func (s *Service) Audit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !unsafeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		note := &auditNote{}
		w, status := httpx.TrackStatus(w)
		r = r.WithContext(context.WithValue(r.Context(), auditKey{}, note))
		note.req = r
		next.ServeHTTP(w, r)
		entries := note.extra
		if e, ok := note.entry(r); ok && !note.written {
			entries = append([]*AuditEntry{e}, entries...)
		}
		if len(entries) == 0 {
			return
		}
		code := status()
		if code == 0 {
			code = http.StatusOK
		}
		route, _ := routeOf(r)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
		defer cancel()
		for _, e := range entries {
			e.Status = code
			if e.Method == "" {
				e.Method, e.Route, e.Path, e.ClientIP = r.Method, route, r.URL.Path, httpx.ClientIP(r)
			}
			if err := s.recordAudit(ctx, e); err != nil {
				httpx.Logger(r).Error("audit log not written", "err", err, "action", e.Action,
					"user", e.Username, "method", e.Method, "path", e.Path, "ip", e.ClientIP)
			}
		}
	})
}

// TxAudit is the request's own audit entry, to be written in the
// transaction that decides the handler's answer rather than in a commit of
// its own after it (docs/design.md#group-commit). The nil TxAudit, for a
// request that deserves no entry, writes nothing.
type TxAudit struct {
	s    *Service
	note *auditNote
	e    *AuditEntry
}

// AuditInTx prepares the entry of the request whose context is ctx, as an
// answer of status: the handler calls Write in its transaction and, once
// that committed, Committed. Nil when the request deserves no entry, or
// has no Audit middleware.
func (s *Service) AuditInTx(ctx context.Context, status int) *TxAudit {
	n := noteOf(ctx)
	if n == nil || n.req == nil || n.written {
		return nil
	}
	e, ok := n.entry(n.req)
	if !ok {
		return nil
	}
	e.Status = status
	return &TxAudit{s: s, note: n, e: e}
}

// Write inserts the entry in tx. A transaction tried again writes it
// again: only the one that commits keeps it.
func (a *TxAudit) Write(ctx context.Context, tx sqlstore.Querier) error {
	if a == nil {
		return nil
	}
	e := *a.e
	e.At = time.Time{}
	return a.s.insertAudit(ctx, tx, &e)
}

// Committed tells the middleware that a transaction holding the entry
// committed: it does not write the request's entry again.
func (a *TxAudit) Committed() {
	if a != nil {
		a.note.written = true
	}
}

// entry is the audit row of the request, if it deserves one.
func (n *auditNote) entry(r *http.Request) (*AuditEntry, bool) {
	e := &AuditEntry{Method: r.Method, Path: r.URL.Path, ClientIP: httpx.ClientIP(r)}
	switch {
	case n.login != nil && (n.login.signedIn || n.login.failed):
		e.UserID, e.Username, e.Via = n.login.userID, n.login.username, "password"
		e.Action = AuditLoginFailed
		if n.login.signedIn {
			e.Action = AuditLogin
		}
		// No identity middleware ran to note the route; the mux has set
		// the pattern on r itself, which it was handed down unchanged.
		e.Route, _ = routeOf(r)
		return e, true
	case n.idn.IsAdmin():
		e.UserID, e.Username, e.Via = n.idn.UserID, n.idn.Username, n.idn.Via
		e.Route, e.ResourceID = n.route, n.resource
		e.Action = AuditWrite
		if strings.HasSuffix(e.Route, "/logout") {
			e.Action = AuditLogout
		}
		return e, true
	}
	return nil, false
}

// noteIdentity tells the request's audit note who it acts as, and which
// route and resource it addresses: the middlewares resolving an identity
// run where the mux has matched the pattern.
func noteIdentity(r *http.Request, idn *Identity) {
	n := noteOf(r.Context())
	if n == nil {
		return
	}
	n.idn = idn
	n.route, n.resource = routeOf(r)
}

// routeOf is the path of the request's pattern and the value of its last
// wildcard: "DELETE /api/v1/posts/{id}" gives the route
// "/api/v1/posts/{id}" and the id.
func routeOf(r *http.Request) (route, resource string) {
	p := r.Pattern
	if i := strings.IndexByte(p, '/'); i >= 0 {
		p = p[i:]
	}
	if i := strings.LastIndexByte(p, '{'); i >= 0 {
		if j := strings.IndexByte(p[i:], '}'); j > 0 {
			name := strings.TrimSuffix(p[i+1:i+j], "...")
			if name != "$" {
				resource = r.PathValue(name)
			}
		}
	}
	return p, resource
}

// noteLoginUser tells the note of ctx that a sign-in names u, when u is an
// administrator; failed says the attempt was refused.
func noteLoginUser(ctx context.Context, u *User, failed bool) {
	n := noteOf(ctx)
	if n == nil || u == nil {
		return
	}
	if u.Role != RoleAdmin {
		n.plainUser = u.ID
		return
	}
	if n.login == nil || n.login.userID != u.ID {
		n.login = &loginNote{userID: u.ID, username: u.Username}
	}
	n.login.failed = n.login.failed || failed
}

// noteSignIn tells the note of ctx that userID was signed in (a session or
// a token pair issued); the user is looked up only when a note is there
// and does not already name them.
func (s *Service) noteSignIn(ctx context.Context, userID string) {
	n := noteOf(ctx)
	if n == nil || n.plainUser == userID {
		return
	}
	if n.login == nil || n.login.userID != userID {
		u, err := s.UserByID(ctx, userID)
		if err != nil {
			return
		}
		noteLoginUser(ctx, u, false)
	}
	if n.login != nil && n.login.userID == userID {
		n.login.signedIn, n.login.failed = true, false
	}
}

// noteFailedFactor tells the note of ctx that userID gave a wrong second
// factor.
func (s *Service) noteFailedFactor(ctx context.Context, userID string) {
	if noteOf(ctx) == nil {
		return
	}
	if u, err := s.UserByID(ctx, userID); err == nil {
		noteLoginUser(ctx, u, true)
	}
}

// auditFactorLock records that userID's second factor was locked until
// the given time, or that such a lock ended (action). Inside a request it
// is written with the request's details, after the request; otherwise at
// once. A failure to record is logged: the lock holds regardless.
func (s *Service) auditFactorLock(ctx context.Context, userID, action string, until time.Time) {
	e := &AuditEntry{UserID: userID, Via: "password", Action: action,
		ResourceID: until.UTC().Format(time.RFC3339), At: s.now()}
	if u, err := s.UserByID(ctx, userID); err == nil {
		e.Username = u.Username
	}
	if n := noteOf(ctx); n != nil {
		n.extra = append(n.extra, e)
		return
	}
	if err := s.recordAudit(ctx, e); err != nil {
		s.cfg.Logger.Error("audit log not written", "err", err, "action", e.Action, "user", e.Username)
	}
}

func (s *Service) recordAudit(ctx context.Context, e *AuditEntry) error {
	return s.insertAudit(ctx, s.db, e)
}

func (s *Service) insertAudit(ctx context.Context, q sqlstore.Querier, e *AuditEntry) error {
	e.ID = sqlstore.NewID()
	if e.At.IsZero() {
		e.At = s.now()
	}
	_, err := q.Exec(ctx, `INSERT INTO audit_log (id, at, user_id, username, via, action, method, route, path, resource_id, status, client_ip)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		e.ID, sqlstore.FromTime(e.At), e.UserID, e.Username, e.Via, e.Action, e.Method,
		trimField(e.Route), trimField(e.Path), trimField(e.ResourceID), e.Status, e.ClientIP)
	if err != nil {
		return fmt.Errorf("auth: record audit entry: %w", err)
	}
	return nil
}

// RecordCommand adds to db's audit log that the folio command line (for
// example "folio reset-password alice") wrote, about resourceID ("" when
// none). Commands run without a Service: an import may be the first thing
// a database sees.
func RecordCommand(ctx context.Context, db *sqlstore.DB, command, line, resourceID string) error {
	e := &AuditEntry{ID: sqlstore.NewID(), At: time.Now().UTC(), Via: "command", Action: AuditCommand,
		Route: command, Path: line, ResourceID: resourceID}
	_, err := db.Exec(ctx, `INSERT INTO audit_log (id, at, user_id, username, via, action, method, route, path, resource_id, status, client_ip)
		VALUES ($1, $2, '', '', $3, $4, '', $5, $6, $7, 0, '')`,
		e.ID, sqlstore.FromTime(e.At), e.Via, e.Action, trimField(e.Route), trimField(e.Path), trimField(e.ResourceID))
	if err != nil {
		return fmt.Errorf("auth: record audit entry: %w", err)
	}
	return nil
}

// trimField keeps a request-given text valid UTF-8 (PostgreSQL refuses
// anything else) and of bounded length.
func trimField(s string) string {
	const max = 512
	if len(s) > max {
		s = s[:max]
	}
	return strings.ToValidUTF8(s, "")
}

// AuditFilter narrows a listing of the audit log; empty fields match all.
type AuditFilter struct {
	User   string // user name, any case, or user id
	Method string
	Action string
}

// ListAudit lists the audit log newest first: a page of entries and the
// number matching.
func (s *Service) ListAudit(ctx context.Context, f AuditFilter, limit, offset int) ([]AuditEntry, int, error) {
	var conds []string
	var args []any
	// cond names its one argument as %[1]d, as often as it needs.
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if f.User != "" {
		add("(LOWER(username) = LOWER($%[1]d) OR user_id = $%[1]d)", f.User)
	}
	if f.Method != "" {
		add("method = $%[1]d", strings.ToUpper(f.Method))
	}
	if f.Action != "" {
		add("action = $%[1]d", f.Action)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	var total int
	if err := s.db.QueryRow(ctx, "SELECT COUNT(*) FROM audit_log"+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("auth: count audit log: %w", err)
	}
	n := len(args)
	rows, err := s.db.Query(ctx, `SELECT id, at, user_id, username, via, action, method, route, path, resource_id, status, client_ip
		FROM audit_log`+where+fmt.Sprintf(" ORDER BY at DESC, id DESC LIMIT $%d OFFSET $%d", n+1, n+2),
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("auth: list audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.UserID, &e.Username, &e.Via, &e.Action, &e.Method, &e.Route,
			&e.Path, &e.ResourceID, &e.Status, &e.ClientIP); err != nil {
			return nil, 0, fmt.Errorf("auth: list audit log: %w", err)
		}
		e.At = sqlstore.Time(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("auth: list audit log: %w", err)
	}
	return out, total, nil
}

// PruneAudit deletes the entries older than before and reports how many.
func (s *Service) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.Exec(ctx, "DELETE FROM audit_log WHERE at < $1", sqlstore.FromTime(before))
	if err != nil {
		return 0, fmt.Errorf("auth: prune audit log: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
