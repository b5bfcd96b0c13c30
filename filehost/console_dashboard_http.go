package filehost

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"folio/auth"
	"folio/templates"
)

// dashboardDays is how far back the uploads-per-day chart looks.
const dashboardDays = 30

// dashboardUploads is how many of the newest uploads the dashboard shows.
const dashboardUploads = 8

// dashboardView is the "dashboard" page's data.
type dashboardView struct {
	Blog               *BlogStats // nil: no blog to ask, or it failed
	Stats              *adminStats
	Recent             []recentUpload
	Days, Types, Users chart
	DaysFiles          int64
}

// recentUpload is one of the newest files as the dashboard shows it: a
// small thumbnail (or its extension) leading to where the administrator
// can see it, their own file's page or the owner's files.
type recentUpload struct {
	consoleCard
	Owner string // "" when the account is gone
	Href  string
}

// handleConsoleDashboard is GET /console/admin, the administrator's home:
// the blog's posts and comments (from Deps.Blog), the file host's totals
// and newest uploads, and charts of uploads per day, files per type and
// the users storing the most, drawn on the server as SVG
// (docs/console.md#the-dashboard).
func (s consoleHandlers) handleConsoleDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	st, err := s.adminStats(ctx, defaultTopUsers)
	if err != nil {
		return err
	}
	data := dashboardView{Stats: st, Blog: s.blogStats(ctx)}
	if data.Recent, err = s.recentUploads(ctx); err != nil {
		return err
	}
	// Days are UTC days, as the database groups them.
	first := s.now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1-dashboardDays)
	perDay, err := s.uploadsPerDay(ctx, first)
	if err != nil {
		return err
	}
	days := make([]chartPoint, dashboardDays)
	for i := range days {
		d := first.AddDate(0, 0, i)
		n := perDay[d.Unix()/86400]
		data.DaysFiles += n.Files
		days[i] = chartPoint{Label: d.Format("2 Jan"), Value: n.Files,
			Title: fmt.Sprintf("%s: %s, %s", d.Format("Mon 2 Jan"), plural(int(n.Files), "file"), templates.HumanBytes(n.Bytes))}
	}
	data.Days = columnChart(days, 600, 180, 7)
	types := make([]chartPoint, len(st.ByType))
	for i, t := range st.ByType {
		types[i] = chartPoint{Label: t.FileType, Value: t.Files,
			Title: fmt.Sprintf("%s: %s, %s", t.FileType, plural(int(t.Files), "file"), templates.HumanBytes(t.Bytes))}
	}
	data.Types = rowChart(types, 600, func(n int64) string { return plural(int(n), "file") })
	users := make([]chartPoint, len(st.TopUsers))
	for i, u := range st.TopUsers {
		users[i] = chartPoint{Label: u.Username, Value: u.Bytes,
			Title: fmt.Sprintf("%s: %s in %s", u.Username, templates.HumanBytes(u.Bytes), plural(int(u.Files), "file"))}
	}
	data.Users = rowChart(users, 600, templates.HumanBytes)
	v := s.console.View(w, r, "Dashboard", "admin")
	v.Data = data
	s.console.Render(w, r, http.StatusOK, "dashboard", v)
	return nil
}

// blogStats asks the blog for its side of the dashboard. The blog is a
// panel beside the file host's: when it cannot answer, the rest of the
// page still shows, as the blog's own dashboard does without the file
// host's numbers.
func (s consoleHandlers) blogStats(ctx context.Context) *BlogStats {
	if s.blog == nil {
		return nil
	}
	b, err := s.blog.BlogOverview(ctx)
	if err != nil {
		s.log.Warn("filehost: console dashboard: blog overview", "err", err)
		return nil
	}
	return &b
}

// recentUploads are the newest files of every account. A restricted file
// of someone else shows its extension, not its thumbnail, whose link is
// closed to the administrator (docs/filehost.md#visibility).
func (s consoleHandlers) recentUploads(ctx context.Context) ([]recentUpload, error) {
	files, _, err := s.listFiles(ctx, fileQuery{OrderBy: "created_at", Desc: true, Limit: dashboardUploads})
	if err != nil {
		return nil, err
	}
	names, err := s.usernames(ctx, files)
	if err != nil {
		return nil, err
	}
	me := auth.FromContext(ctx).UserID
	out := make([]recentUpload, len(files))
	for i, f := range files {
		u := recentUpload{consoleCard: newCard(f), Owner: names[f.userID], Href: "/console/files/" + f.ID}
		if f.userID != me {
			// The file pages are their owners'; the administrator sees
			// another account's files in the list of all files.
			u.Href = "/console/admin/files?user=" + url.QueryEscape(u.Owner)
			if f.Visibility == visRestricted {
				u.Thumb, u.Srcset = "", ""
			}
		}
		out[i] = u
	}
	return out, nil
}
