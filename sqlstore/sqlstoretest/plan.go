package sqlstoretest

import (
	"context"
	"strings"
	"testing"

	"folio/sqlstore"
)

// QueryPlan returns SQLite's plan of query (EXPLAIN QUERY PLAN) as one
// line a step, indented two spaces a level below its parent. It skips the
// test on PostgreSQL, whose plans depend on statistics and name nothing
// the same way.
func QueryPlan(t testing.TB, db *sqlstore.DB, query string, args ...any) []string {
	t.Helper()
	if db.Dialect() != sqlstore.SQLite {
		t.Skip("query plans are checked on SQLite")
	}
	rows, err := db.Query(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	defer rows.Close()
	depth := map[int]int{0: -1}
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatalf("explain %s: %v", query, err)
		}
		depth[id] = depth[parent] + 1
		plan = append(plan, strings.Repeat("  ", depth[id])+detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	return plan
}

// Subplan returns the steps below the first step of plan (from QueryPlan)
// that starts with one of heads, unindented by one level; nil when there
// is none.
func Subplan(plan []string, heads ...string) []string {
	for i, step := range plan {
		d := strings.TrimLeft(step, " ")
		indent := len(step) - len(d)
		found := false
		for _, h := range heads {
			found = found || strings.HasPrefix(d, h)
		}
		if !found {
			continue
		}
		var sub []string
		for _, s := range plan[i+1:] {
			if len(s)-len(strings.TrimLeft(s, " ")) <= indent {
				break
			}
			sub = append(sub, s[indent+2:])
		}
		return sub
	}
	return nil
}
