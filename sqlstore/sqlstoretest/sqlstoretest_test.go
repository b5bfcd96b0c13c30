package sqlstoretest

import (
	"context"
	"os"
	"testing"
)

func TestWithSearchPathNamesTheSchemaAndCommitsWithoutWaitingForTheDisk(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/folio?sslmode=disable": "postgres://postgres@127.0.0.1:5432/folio?search_path=t_1&sslmode=disable&synchronous_commit=off",
		"host=127.0.0.1 dbname=folio":                              "host=127.0.0.1 dbname=folio search_path=t_1 synchronous_commit=off",
	} {
		if got := withSearchPath(dsn, "t_1"); got != want {
			t.Errorf("withSearchPath(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestPostgresSessionsOfATestDatabase checks what withSearchPath asks of
// the server: the test's own schema, and commits that do not wait for an
// fsync (docs/testing.md#keeping-ci-fast).
func TestPostgresSessionsOfATestDatabase(t *testing.T) {
	if os.Getenv(EnvDSN) == "" {
		t.Skip(EnvDSN + " is not set")
	}
	db := Open(t)
	ctx := context.Background()
	var sync, schema string
	if err := db.QueryRow(ctx, "SELECT current_setting('synchronous_commit'), current_schema()").Scan(&sync, &schema); err != nil {
		t.Fatal(err)
	}
	if sync != "off" || len(schema) != 26 || schema[:2] != "t_" {
		t.Errorf("synchronous_commit %q, schema %q; want off and the test's t_ schema", sync, schema)
	}
}
