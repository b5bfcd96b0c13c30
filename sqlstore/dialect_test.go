package sqlstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"folio/sqlstore"
)

func TestRebind(t *testing.T) {
	tests := []struct {
		name, in, sqlite string
	}{
		{"no placeholders", "SELECT 1", "SELECT 1"},
		{"one placeholder", "SELECT * FROM t WHERE a = $1", "SELECT * FROM t WHERE a = ?1"},
		{"reversed order keeps numbers", "SELECT $2, $1", "SELECT ?2, ?1"},
		{"multi-digit", "VALUES ($9, $10, $11)", "VALUES (?9, ?10, ?11)"},
		{"repeated", "WHERE a = $1 OR b = $1", "WHERE a = ?1 OR b = ?1"},
		{"single-quoted literal untouched", "SELECT '$1', $1", "SELECT '$1', ?1"},
		{"doubled quote inside literal", "SELECT 'it''s $1', $2", "SELECT 'it''s $1', ?2"},
		{"double-quoted identifier untouched", `SELECT "a$1" FROM t WHERE x = $1`, `SELECT "a$1" FROM t WHERE x = ?1`},
		{"dollar without digit", "SELECT '$', $a, $", "SELECT '$', $a, $"},
		{"placeholder right after a literal", "SELECT 'a'||$1", "SELECT 'a'||?1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sqlstore.SQLite.Rebind(tt.in); got != tt.sqlite {
				t.Errorf("SQLite.Rebind(%q) = %q, want %q", tt.in, got, tt.sqlite)
			}
			if got := sqlstore.Postgres.Rebind(tt.in); got != tt.in {
				t.Errorf("Postgres.Rebind(%q) = %q, want it unchanged", tt.in, got)
			}
		})
	}
}

func TestDDL(t *testing.T) {
	in := "CREATE TABLE x (id {{uuid}}, data {{blob}})"
	if got, want := sqlstore.SQLite.DDL(in), "CREATE TABLE x (id TEXT, data BLOB)"; got != want {
		t.Errorf("SQLite.DDL = %q, want %q", got, want)
	}
	if got, want := sqlstore.Postgres.DDL(in), "CREATE TABLE x (id UUID, data BYTEA)"; got != want {
		t.Errorf("Postgres.DDL = %q, want %q", got, want)
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		from, n int
		want    string
	}{{1, 0, ""}, {1, 1, "$1"}, {3, 3, "$3, $4, $5"}}
	for _, tt := range tests {
		if got := sqlstore.Placeholders(tt.from, tt.n); got != tt.want {
			t.Errorf("Placeholders(%d, %d) = %q, want %q", tt.from, tt.n, got, tt.want)
		}
	}
}

func TestLikePattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "%abc%"},
		{"50%", `%50\%%`},
		{"a_b", `%a\_b%`},
		{`c:\x`, `%c:\\x%`},
		{"", "%%"},
	}
	for _, tt := range tests {
		if got := sqlstore.LikePattern(tt.in); got != tt.want {
			t.Errorf("LikePattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestILikeSearchesLiterally(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	exec(t, db, `CREATE TABLE words (w TEXT NOT NULL)`)
	for _, w := range []string{"Hello World", "100% sure", "100 percent", "snake_case", "snakeXcase", `back\slash`, "backslash"} {
		if _, err := db.Exec(ctx, "INSERT INTO words (w) VALUES ($1)", w); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, q string
		want    []string
	}{
		{"lower finds mixed case", "hello", []string{"Hello World"}},
		{"upper finds mixed case", "WORLD", []string{"Hello World"}},
		{"percent is literal", "100%", []string{"100% sure"}},
		{"underscore is literal", "e_c", []string{"snake_case"}},
		{"backslash is literal", `k\s`, []string{`back\slash`}},
		{"plain substring", "100", []string{"100 percent", "100% sure"}},
		{"nothing", "zzz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.Query(ctx, "SELECT w FROM words WHERE "+db.Dialect().ILike("w", "$1")+" ORDER BY w", sqlstore.LikePattern(tt.q))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var w string
				if err := rows.Scan(&w); err != nil {
					t.Fatal(err)
				}
				got = append(got, w)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("search %q = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

func TestTimeRoundTrip(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	exec(t, db, `CREATE TABLE stamps (at BIGINT NOT NULL, maybe BIGINT)`)
	now := time.Date(2024, 2, 29, 23, 59, 59, 123456789, time.FixedZone("x", 3600))
	if _, err := db.Exec(ctx, "INSERT INTO stamps (at, maybe) VALUES ($1, $2)", sqlstore.FromTime(now), sqlstore.FromNullTime(nil)); err != nil {
		t.Fatal(err)
	}
	var at int64
	var maybe *int64
	if err := db.QueryRow(ctx, "SELECT at, maybe FROM stamps").Scan(&at, &maybe); err != nil {
		t.Fatal(err)
	}
	got := sqlstore.Time(at)
	if !got.Equal(now.Truncate(time.Microsecond)) || got.Location() != time.UTC {
		t.Errorf("Time = %v, want %v in UTC", got, now.Truncate(time.Microsecond))
	}
	if sqlstore.NullTime(maybe) != nil {
		t.Errorf("NullTime(NULL) = %v, want nil", sqlstore.NullTime(maybe))
	}
}
