package filehost

import (
	"fmt"
	"net/http"
	"time"

	"folio/templates"
)

// dashboardDays is how far back the uploads-per-day chart looks.
const dashboardDays = 30

// dashboardView is the "dashboard" page's data.
type dashboardView struct {
	Stats              *adminStats
	Days, Types, Users chart
	DaysFiles          int64
}

// handleConsoleDashboard is GET /console/admin: totals, and charts of
// uploads per day, files per type and the users storing the most, drawn on
// the server as SVG (docs/console.md#administration).
func (s consoleHandlers) handleConsoleDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	st, err := s.adminStats(ctx, defaultTopUsers)
	if err != nil {
		return err
	}
	// Days are UTC days, as the database groups them.
	first := s.now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1-dashboardDays)
	perDay, err := s.uploadsPerDay(ctx, first)
	if err != nil {
		return err
	}
	data := dashboardView{Stats: st}
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
