package sqlstore

import (
	"strconv"
	"strings"
	"time"
)

// Rebind rewrites $N placeholders for the dialect: unchanged on PostgreSQL,
// ?N on SQLite. Text inside single-quoted literals and double-quoted
// identifiers is left alone.
func (d Dialect) Rebind(query string) string {
	if d != SQLite || !strings.Contains(query, "$") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query))
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$' && i+1 < len(query) && query[i+1] >= '0' && query[i+1] <= '9':
			b.WriteByte('?')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ILike returns a case-insensitive LIKE comparison of expr against the
// placeholder, with backslash as the escape character (see LikePattern).
// SQLite's LIKE is already case-insensitive for ASCII; PostgreSQL needs ILIKE.
func (d Dialect) ILike(expr, placeholder string) string {
	if d == Postgres {
		return expr + " ILIKE " + placeholder + ` ESCAPE '\'`
	}
	return expr + " LIKE " + placeholder + ` ESCAPE '\'`
}

// LikePattern turns user text into a "contains" pattern for ILike, escaping
// the wildcard characters so a search for "50%" means the text "50%".
func LikePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// DDL rewrites the type tokens used in migrations:
//
//	{{uuid}}  UUID on PostgreSQL, TEXT on SQLite
//	{{blob}}  BYTEA on PostgreSQL, BLOB on SQLite
//
// Timestamps are stored as BIGINT Unix microseconds on both (see Time and
// FromTime), and booleans as BOOLEAN, which SQLite stores as 0/1.
func (d Dialect) DDL(stmt string) string {
	uuid, blob := "TEXT", "BLOB"
	if d == Postgres {
		uuid, blob = "UUID", "BYTEA"
	}
	return strings.NewReplacer("{{uuid}}", uuid, "{{blob}}", blob).Replace(stmt)
}

// Placeholders returns "$from, $from+1, …" for n arguments, for IN lists.
func Placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(from + i))
	}
	return b.String()
}

// FromTime converts a time to the stored form: Unix microseconds, UTC.
func FromTime(t time.Time) int64 { return t.UnixMicro() }

// Time converts a stored timestamp back to a UTC time.
func Time(us int64) time.Time { return time.UnixMicro(us).UTC() }

// NullTime converts a nullable stored timestamp; nil when NULL.
func NullTime(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := Time(*us)
	return &t
}

// FromNullTime converts an optional time to a nullable stored timestamp.
func FromNullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}
