package filehost

import (
	"strings"
	"testing"
	"time"
)

func TestConsoleDashboardShowsTotalsAndCharts(t *testing.T) {
	e := newTestEnv(t)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	img := pngBytes(t, 8, 8)
	alice.Upload("/api/v1/upload", "file", "a.png", img).Expect(200)
	bob.Upload("/api/v1/upload", "file", "b.png", img).Expect(200) // the same bytes: stored once
	alice.Upload("/api/v1/upload", "file", "notes.txt", []byte("plain words")).Expect(200)
	_ = aliceID

	admin := e.consoleAdmin()
	page := admin.Do("GET", "/console/admin", nil).Expect(200)
	today := time.Now().UTC().Format("Mon 2 Jan")
	want := []string{
		"<title>Dashboard · ",
		`<svg class="chart-svg"`, `role="img"`,
		today + ": 3 files",
		"alice: ",
		"image: 2 files",
		"<dt>Files</dt><dd>3</dd>",
	}
	for _, w := range want {
		if !strings.Contains(string(page.Body), w) {
			t.Errorf("dashboard lacks %q", w)
		}
	}
	if strings.Contains(string(page.Body), "<dt>Saved by de-duplication</dt><dd>0 B</dd>") {
		t.Error("the shared upload saved nothing")
	}
	if page.Header.Get("Content-Security-Policy") == "" {
		t.Error("no CSP")
	}

	_, user := e.consoleUser("ursula")
	user.Do("GET", "/console/admin", nil).Expect(403)
	if got := e.c.Clone().Do("GET", "/console/admin", nil).Expect(303).Location(); got != "/console/login?next=%2Fconsole%2Fadmin" {
		t.Errorf("anonymous to %q", got)
	}
}

func TestConsoleDashboardOfAnEmptySite(t *testing.T) {
	e := newTestEnv(t)
	page := e.consoleAdmin().Do("GET", "/console/admin", nil).Expect(200)
	if !contains(page, "Nothing yet.", "0 in the last 30 days") {
		t.Errorf("empty dashboard: %.600s", page.Body)
	}
}
