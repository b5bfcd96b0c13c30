package blog

import (
	"cmp"
	"slices"
)

// The report of an import as people read it (docs/export-import.md#the-imports-result):
// the command line prints it, the console shows it. The API answers the
// ImportResult itself.

// ImportRow is one kind's line of an import's report.
type ImportRow struct {
	// Kind names the kind in the plural, lower case: "posts", "friend
	// links", "media".
	Kind string
	ImportCount
}

// Rows are the lines of the report, one per kind, in the order the
// export's content is read: posts, pages, categories, tags, comments and
// friend links always, then redirects and media when the import met any.
func (r *ImportResult) Rows() []ImportRow {
	rows := []ImportRow{{"posts", r.Posts}, {"pages", r.Pages}, {"categories", r.Categories}, {"tags", r.Tags},
		{"comments", r.Comments}, {"friend links", r.FriendLinks}}
	if r.Redirects != (ImportCount{}) {
		rows = append(rows, ImportRow{"redirects", r.Redirects})
	}
	if r.Media != (ImportCount{}) {
		rows = append(rows, ImportRow{"media", r.Media})
	}
	return rows
}

// ImportLoss is one kind of what the content's conversion could not keep
// as it was, and how many times it happened over the import.
type ImportLoss struct {
	Kind  string
	Count int
}

// LossList is the result's losses, the most frequent first (then by kind,
// so that the order is always the same); empty when nothing was lost.
func (r *ImportResult) LossList() []ImportLoss {
	out := make([]ImportLoss, 0, len(r.Losses))
	for k, n := range r.Losses {
		if n > 0 {
			out = append(out, ImportLoss{k, n})
		}
	}
	slices.SortFunc(out, func(a, b ImportLoss) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}
