package sqlstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// siteSet and uploadSet are test-only groups whose keys look like those the
// owners register, so rows the old code wrote can be read back.
type siteSet struct {
	SiteName     string `json:"site_name"`
	ICP          string `json:"icp"`
	PostsPerPage int    `json:"posts_per_page"`
	EnableTOC    bool   `json:"enable_toc"`
}

type uploadSet struct {
	AllowRegister bool      `json:"allow_register"`
	MaxFileSize   int64     `json:"max_file_size"`
	ForbiddenExts commaList `json:"forbidden_exts"`
}

// commaList is a comma-separated string in JSON, as list settings are.
type commaList []string

func (l commaList) MarshalJSON() ([]byte, error) { return json.Marshal(strings.Join(l, ",")) }

func (l *commaList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = commaList{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(p), ".")); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func defaultSite() siteSet { return siteSet{SiteName: "Folio", PostsPerPage: 10, EnableTOC: true} }

func defaultUpload() uploadSet {
	return uploadSet{MaxFileSize: 100 << 20, ForbiddenExts: commaList{"php", "exe"}}
}

func (s siteSet) validate() error {
	if s.PostsPerPage < 1 || s.PostsPerPage > 100 {
		return &sqlstore.FieldError{Key: "site.posts_per_page", Msg: "must be between 1 and 100"}
	}
	return nil
}

func (u uploadSet) validate() error {
	if u.MaxFileSize < 1 {
		return &sqlstore.FieldError{Key: "upload.max_file_size", Msg: "must be positive"}
	}
	if slices.Contains(u.ForbiddenExts, "*") {
		return errors.New("cannot forbid every extension")
	}
	return nil
}

// testSettings is a registry of both test groups.
type testSettings struct {
	reg    *sqlstore.Registry
	site   *sqlstore.Group[siteSet]
	upload *sqlstore.Group[uploadSet]
	clock  *testClock
}

func newTestSettings(site siteSet, upload uploadSet) testSettings {
	reg := sqlstore.NewRegistry()
	clock := &testClock{t: time.Unix(1_700_000_000, 0)}
	reg.SetClock(clock.now)
	return testSettings{reg: reg, clock: clock,
		site:   sqlstore.Register(reg, "site", site, siteSet.validate),
		upload: sqlstore.Register(reg, "upload", upload, uploadSet.validate)}
}

// openTestSettings opens a registry of the default test groups over db.
func openTestSettings(t *testing.T, db *sqlstore.DB) testSettings {
	t.Helper()
	s := newTestSettings(defaultSite(), defaultUpload())
	if err := s.reg.Open(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return s
}

// testClock is a registry clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestSetText(t *testing.T) {
	tests := []struct {
		name, key, text string
		check           func(s testSettings) bool
	}{
		{"bool off", "site.enable_toc", "off", func(s testSettings) bool { return !s.site.Base().EnableTOC }},
		{"bool yes", "upload.allow_register", "yes", func(s testSettings) bool { return s.upload.Base().AllowRegister }},
		{"int", "site.posts_per_page", " 25 ", func(s testSettings) bool { return s.site.Base().PostsPerPage == 25 }},
		{"size with suffix", "upload.max_file_size", "5 MiB", func(s testSettings) bool { return s.upload.Base().MaxFileSize == 5<<20 }},
		{"size plain", "upload.max_file_size", "0", func(s testSettings) bool { return s.upload.Base().MaxFileSize == 0 }},
		{"list", "upload.forbidden_exts", " .EXE, php ,,", func(s testSettings) bool {
			return slices.Equal(s.upload.Base().ForbiddenExts, commaList{"exe", "php"})
		}},
		{"empty list", "upload.forbidden_exts", "", func(s testSettings) bool { return len(s.upload.Base().ForbiddenExts) == 0 }},
		{"string", "site.site_name", "My \"quoted\" site", func(s testSettings) bool { return s.site.Base().SiteName == `My "quoted" site` }},
		{"string that looks like a number", "site.icp", "12345", func(s testSettings) bool { return s.site.Base().ICP == "12345" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSettings(defaultSite(), defaultUpload())
			if err := s.reg.SetText(tt.key, tt.text); err != nil {
				t.Fatalf("SetText(%s, %q): %v", tt.key, tt.text, err)
			}
			if !tt.check(s) {
				t.Fatalf("SetText(%s, %q) gave %+v %+v", tt.key, tt.text, s.site.Base(), s.upload.Base())
			}
			if got, want := s.site.Get(context.Background()), s.site.Base(); !equalJSON(t, got, want) {
				t.Fatalf("before Open Get = %+v, want the base %+v", got, want)
			}
		})
	}
}

func TestSetTextErrorsNameTheKey(t *testing.T) {
	tests := []struct{ name, key, text string }{
		{"unknown key", "site.nope", "x"},
		{"unknown group", "nope", "x"},
		{"group without field", "site", "x"},
		{"bad bool", "site.enable_toc", "maybe"},
		{"bad int", "site.posts_per_page", "ten"},
		{"bad size", "upload.max_file_size", "12 parsecs"},
		{"overflowing size", "upload.max_file_size", "9999999999999999999G"},
		{"negative overflowing size", "upload.max_file_size", "-9007199254740993K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSettings(defaultSite(), defaultUpload())
			err := s.reg.SetText(tt.key, tt.text)
			var fe *sqlstore.FieldError
			if !errors.As(err, &fe) || fe.Key != tt.key {
				t.Fatalf("SetText(%s, %q) = %v, want a FieldError naming the key", tt.key, tt.text, err)
			}
			if !equalJSON(t, s.site.Base(), defaultSite()) || !equalJSON(t, s.upload.Base(), defaultUpload()) {
				t.Fatalf("failed SetText changed the settings")
			}
		})
	}
}

func TestSetTextAfterOpenIsRefused(t *testing.T) {
	s := openTestSettings(t, openDB(t))
	if err := s.reg.SetText("site.site_name", "x"); err == nil {
		t.Fatal("SetText after Open succeeded")
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"123", 123, true}, {"1K", 1 << 10, true}, {"1kb", 1 << 10, true},
		{"2 MiB", 2 << 20, true}, {"3G", 3 << 30, true}, {"-1", -1, true},
		{"", 0, false}, {"1.5M", 0, false}, {"M", 0, false}, {"1T", 0, false},
		{"9999999999G", 0, false}, {"-9999999999G", 0, false},
	}
	for _, tt := range tests {
		got, err := sqlstore.ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestKeysListsEveryRegisteredSetting(t *testing.T) {
	keys := newTestSettings(defaultSite(), defaultUpload()).reg.Keys()
	want := []string{"site.enable_toc", "site.icp", "site.posts_per_page", "site.site_name",
		"upload.allow_register", "upload.forbidden_exts", "upload.max_file_size"}
	if !slices.Equal(keys, want) {
		t.Fatalf("Keys() = %q, want %q", keys, want)
	}
}

func TestValidateChecksEveryBase(t *testing.T) {
	tests := []struct {
		name   string
		site   func(*siteSet)
		upload func(*uploadSet)
		key    string // "" when valid
	}{
		{"defaults", func(*siteSet) {}, func(*uploadSet) {}, ""},
		{"first group", func(s *siteSet) { s.PostsPerPage = 0 }, func(*uploadSet) {}, "site.posts_per_page"},
		{"second group", func(*siteSet) {}, func(u *uploadSet) { u.MaxFileSize = 0 }, "upload.max_file_size"},
		{"first offending group wins", func(s *siteSet) { s.PostsPerPage = 0 }, func(u *uploadSet) { u.MaxFileSize = 0 }, "site.posts_per_page"},
		{"plain error names the group", func(*siteSet) {}, func(u *uploadSet) { u.ForbiddenExts = commaList{"*"} }, "upload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, upload := defaultSite(), defaultUpload()
			tt.site(&site)
			tt.upload(&upload)
			err := newTestSettings(site, upload).reg.Validate()
			var fe *sqlstore.FieldError
			if tt.key == "" && err != nil || tt.key != "" && (!errors.As(err, &fe) || fe.Key != tt.key) {
				t.Fatalf("Validate = %v, want a FieldError for %q", err, tt.key)
			}
		})
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	tests := []struct {
		name     string
		register func(reg *sqlstore.Registry)
	}{
		{"taken name", func(reg *sqlstore.Registry) { sqlstore.Register(reg, "site", defaultSite(), nil) }},
		{"dotted name", func(reg *sqlstore.Registry) { sqlstore.Register(reg, "a.b", defaultSite(), nil) }},
		{"not an object", func(reg *sqlstore.Registry) { sqlstore.Register(reg, "n", 5, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSettings(defaultSite(), defaultUpload())
			defer func() {
				if recover() == nil {
					t.Fatal("Register did not panic")
				}
			}()
			tt.register(s.reg)
		})
	}
}

func TestPutStoresOnlyDifferences(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	db := cfg.Open(t)
	ctx := context.Background()
	site := defaultSite()
	site.SiteName = "From the file"
	open := func(db *sqlstore.DB, site siteSet) testSettings {
		t.Helper()
		s := newTestSettings(site, defaultUpload())
		if err := s.reg.Open(ctx, db); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(db, site)
	if got := s.site.Get(ctx); !equalJSON(t, got, site) {
		t.Fatalf("fresh registry = %+v, want the base", got)
	}

	next := site
	next.PostsPerPage = 42
	if err := s.site.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	if err := s.upload.Put(ctx, uploadSet{MaxFileSize: 100 << 20, ForbiddenExts: commaList{"exe"}}); err != nil {
		t.Fatal(err)
	}
	if got := storedKeys(t, db); !slices.Equal(got, []string{"site.posts_per_page", "upload.forbidden_exts"}) {
		t.Fatalf("stored keys = %q, want only the two changed ones", got)
	}

	// A restart with a changed configuration keeps the override and follows
	// the file for the rest.
	site2 := site
	site2.SiteName = "Edited file"
	restarted := open(db, site2)
	if got := restarted.site.Get(ctx); got.PostsPerPage != 42 || got.SiteName != "Edited file" {
		t.Fatalf("after restart = %+v", got)
	}
	if got := restarted.upload.Get(ctx).ForbiddenExts; !slices.Equal(got, commaList{"exe"}) {
		t.Fatalf("after restart forbidden_exts = %q", got)
	}

	// Putting the base values back removes the overrides.
	if err := s.site.Put(ctx, site); err != nil {
		t.Fatal(err)
	}
	if err := s.upload.Put(ctx, defaultUpload()); err != nil {
		t.Fatal(err)
	}
	if got := storedKeys(t, db); len(got) != 0 {
		t.Fatalf("stored keys after reverting = %q, want none", got)
	}
}

// sharedTestDB opens a handle of cfg whose change counters every other
// handle of cfg sees, as processes on one machine do.
func sharedTestDB(t *testing.T, cfg sqlstoretest.Config) *sqlstore.DB {
	t.Helper()
	db := cfg.Open(t)
	if err := db.ShareChanges(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The registry's confirmation, for as long as the test runs.
	db.Changes().ConfirmShared(time.Now().Add(time.Hour))
	return db
}

func TestPutShowsAtOnceInEveryProcessSharingTheCounters(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	here, there := openTestSettings(t, sharedTestDB(t, cfg)), openTestSettings(t, sharedTestDB(t, cfg))
	there.site.Get(ctx)

	for _, name := range []string{"Changed", "Again"} {
		next := defaultSite()
		next.SiteName = name
		if err := here.site.Put(ctx, next); err != nil {
			t.Fatal(err)
		}
		if got := here.site.Get(ctx).SiteName; got != name {
			t.Fatalf("own registry after Put: site_name = %q, want %q", got, name)
		}
		// No time passes on either clock: the counter alone tells.
		if got := there.site.Get(ctx).SiteName; got != name {
			t.Fatalf("other registry right after Put: site_name = %q, want %q", got, name)
		}
	}
	// Reads without a change read nothing: the stored value changed
	// behind the registry's back (no Put, no counter) is not seen.
	if _, err := cfg.Open(t).Exec(ctx, "UPDATE settings SET value = '\"Behind\"' WHERE key = 'site.site_name'"); err != nil {
		t.Fatal(err)
	}
	if got := there.site.Get(ctx).SiteName; got != "Again" {
		t.Fatalf("unannounced write: site_name = %q, want the cached %q", got, "Again")
	}
}

// TestGetWithSharedCountersReadsNoClock: where the counters decide, a read
// of the settings, which every request makes, reads no clock
// (docs/design.md#caches-across-processes).
func TestGetWithSharedCountersReadsNoClock(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	s := openTestSettings(t, sharedTestDB(t, cfg))
	s.site.Get(ctx)
	var reads atomic.Int64
	s.reg.SetClock(func() time.Time { reads.Add(1); return time.Unix(1_700_000_000, 0) })
	for range 3 {
		s.site.Get(ctx)
		s.upload.Get(ctx)
	}
	if n := reads.Load(); n != 0 {
		t.Fatalf("6 reads of unchanged settings read the clock %d times, want 0", n)
	}
}

// TestGetWithSharedCountersTakesNoLock: a read of unchanged settings where
// the counters decide answers while the registry's lock is held (by a
// reload or a Put), and a Put still shows at once.
func TestGetWithSharedCountersTakesNoLock(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	s := openTestSettings(t, sharedTestDB(t, cfg))
	s.site.Get(ctx)
	release := s.reg.HoldLock()
	done := make(chan string, 1)
	go func() { done <- s.site.Get(ctx).SiteName }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		release()
		t.Fatal("a read of unchanged settings waited for the registry's lock")
	}
	release()
	next := defaultSite()
	next.SiteName = "Changed"
	if err := s.site.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got := s.site.Get(ctx).SiteName; got != "Changed" {
		t.Fatalf("after Put: site_name = %q", got)
	}
}

// TestPutShowsOnTheNextReadWithoutSharedCounters: processes whose change
// counters do not see each other (several machines) check the stored
// settings version on each read, so a Put shows on the very next one.
func TestPutShowsOnTheNextReadWithoutSharedCounters(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	hereDB, thereDB := cfg.Open(t), cfg.Open(t)
	hereDB.UsePrivateChanges()
	thereDB.UsePrivateChanges()
	here, there := openTestSettings(t, hereDB), openTestSettings(t, thereDB)
	there.site.Get(ctx) // read once, so the next read is within the interval

	next := defaultSite()
	next.SiteName = "Changed"
	if err := here.site.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	for name, reg := range map[string]testSettings{"own": here, "other": there} {
		if got := reg.site.Get(ctx).SiteName; got != "Changed" {
			t.Fatalf("%s registry right after Put: site_name = %q, want the change", name, got)
		}
	}

	next.SiteName = "Again"
	if err := here.site.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	if err := there.reg.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := there.site.Get(ctx).SiteName; got != "Again" {
		t.Fatalf("other registry after Refresh: site_name = %q", got)
	}
}

func TestReadFailureKeepsLastKnownValues(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	ctx := context.Background()
	writer := openTestSettings(t, cfg.Open(t))
	next := defaultSite()
	next.SiteName = "Stored"
	if err := writer.site.Put(ctx, next); err != nil {
		t.Fatal(err)
	}
	db := cfg.Open(t)
	reader := openTestSettings(t, db)
	db.Close()
	reader.clock.advance(sqlstore.RefreshInterval)
	if got := reader.site.Get(ctx).SiteName; got != "Stored" {
		t.Fatalf("site_name after a failed read = %q, want the last known", got)
	}
	if err := reader.reg.Refresh(ctx); err == nil {
		t.Fatal("Refresh on a closed database succeeded")
	}
}

func TestPutOfOneInvalidGroupStoresNothing(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	s := openTestSettings(t, db)
	d := s.reg.Document(ctx)
	site := s.site.In(d)
	site.SiteName = "Valid change"
	d = s.site.With(d, site)
	upload := s.upload.In(d)
	upload.MaxFileSize = 0
	d = s.upload.With(d, upload)

	var fe *sqlstore.FieldError
	if err := s.reg.Put(ctx, d); !errors.As(err, &fe) || fe.Key != "upload.max_file_size" {
		t.Fatalf("Put(one group invalid) = %v, want FieldError upload.max_file_size", err)
	}
	if got := storedKeys(t, db); len(got) != 0 {
		t.Fatalf("invalid Put stored %q", got)
	}
	if got := s.site.Get(ctx).SiteName; got != "Folio" {
		t.Fatalf("invalid Put changed current settings: site_name = %q", got)
	}

	// Both groups valid: both are stored together.
	upload.MaxFileSize = 1
	if err := s.reg.Put(ctx, s.upload.With(d, upload)); err != nil {
		t.Fatal(err)
	}
	if got := storedKeys(t, db); !slices.Equal(got, []string{"site.site_name", "upload.max_file_size"}) {
		t.Fatalf("stored keys = %q, want both groups' changes", got)
	}
	var stamps int
	if err := db.QueryRow(ctx, "SELECT COUNT(DISTINCT updated_at) FROM settings").Scan(&stamps); err != nil || stamps != 1 {
		t.Fatalf("rows of one Put carry %d update times (%v), want 1", stamps, err)
	}
}

func TestRowsOfEarlierVersionsAreRead(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	// Rows as the single-struct settings store wrote them, with a key this
	// version dropped, a group no one registers and a value that is not JSON.
	rows := [][2]string{
		{"site.site_name", `"Stored"`},
		{"site.posts_per_page", `42`},
		{"site.enable_toc", `false`},
		{"upload.forbidden_exts", `"exe,php"`},
		{"upload.max_file_size", `5242880`},
		{"site.removed_in_this_version", `"x"`},
		{"render.render_mode", `"headless"`},
		{"upload.allow_register", `not json`},
	}
	for _, r := range rows {
		if _, err := db.Exec(ctx, "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, 0)", r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := openTestSettings(t, db)
	want := siteSet{SiteName: "Stored", PostsPerPage: 42, EnableTOC: false}
	if got := s.site.Get(ctx); got != want {
		t.Fatalf("site = %+v, want %+v", got, want)
	}
	if got := s.upload.Get(ctx); got.MaxFileSize != 5<<20 || !slices.Equal(got.ForbiddenExts, commaList{"exe", "php"}) || got.AllowRegister {
		t.Fatalf("upload = %+v", got)
	}
}

func TestStoredValueOfWrongTypeStopsOpen(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, "INSERT INTO settings (key, value, updated_at) VALUES ('site.posts_per_page', '\"ten\"', 0)"); err != nil {
		t.Fatal(err)
	}
	s := newTestSettings(defaultSite(), defaultUpload())
	var fe *sqlstore.FieldError
	if err := s.reg.Open(ctx, db); !errors.As(err, &fe) || fe.Key != "site.posts_per_page" {
		t.Fatalf("Open = %v, want a FieldError naming site.posts_per_page", err)
	}
}

func TestDocumentJSON(t *testing.T) {
	ctx := context.Background()
	s := openTestSettings(t, openDB(t))
	raw, err := json.Marshal(s.reg.Document(ctx))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"site":{"site_name":"Folio","icp":"","posts_per_page":10,"enable_toc":true},` +
		`"upload":{"allow_register":false,"max_file_size":104857600,"forbidden_exts":"php,exe"}}`
	if string(raw) != want {
		t.Fatalf("document = %s\nwant       %s", raw, want)
	}

	tests := []struct {
		name   string
		in     string
		ok     bool
		site   siteSet
		upload uploadSet
	}{
		{"omitted fields and groups keep their values", `{"site": {"icp": "A-1"}}`, true,
			siteSet{SiteName: "Folio", ICP: "A-1", PostsPerPage: 10, EnableTOC: true}, defaultUpload()},
		{"unknown groups and fields are ignored", `{"nope": 1, "upload": {"nope": 2, "forbidden_exts": "sh"}}`, true,
			defaultSite(), uploadSet{MaxFileSize: 100 << 20, ForbiddenExts: commaList{"sh"}}},
		{"names match regardless of case", `{"SITE": {"Site_Name": "Case"}}`, true,
			siteSet{SiteName: "Case", PostsPerPage: 10, EnableTOC: true}, defaultUpload()},
		{"a repeated group applies both", `{"site": {"icp": "1"}, "site": {"site_name": "Two"}}`, true,
			siteSet{SiteName: "Two", ICP: "1", PostsPerPage: 10, EnableTOC: true}, defaultUpload()},
		{"null keeps everything", `null`, true, defaultSite(), defaultUpload()},
		{"null group keeps the group", `{"site": null}`, true, defaultSite(), defaultUpload()},
		{"wrong type", `{"site": {"posts_per_page": "ten"}}`, false, siteSet{}, uploadSet{}},
		{"group not an object", `{"site": 5}`, false, siteSet{}, uploadSet{}},
		{"not an object", `[]`, false, siteSet{}, uploadSet{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := s.reg.Document(ctx)
			next := cur
			err := json.Unmarshal([]byte(tt.in), &next)
			if (err == nil) != tt.ok {
				t.Fatalf("Unmarshal(%s) = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if !equalJSON(t, s.site.In(cur), defaultSite()) || !equalJSON(t, s.upload.In(cur), defaultUpload()) {
				t.Fatal("decoding changed the document it started from")
			}
			if tt.ok && (!equalJSON(t, s.site.In(next), tt.site) || !equalJSON(t, s.upload.In(next), tt.upload)) {
				t.Fatalf("decoded %+v %+v, want %+v %+v", s.site.In(next), s.upload.In(next), tt.site, tt.upload)
			}
		})
	}
}

func storedKeys(t *testing.T, db *sqlstore.DB) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT key FROM settings ORDER BY key")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ra, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ra) == string(rb)
}

func TestStoredValuesBreakingTheRulesAreIgnoredWithAWarning(t *testing.T) {
	tests := []struct {
		name string
		rows [][2]string
		want uploadSet
		warn []string // keys warned about
	}{
		{"the named key falls back, the others stay",
			[][2]string{{"upload.max_file_size", `0`}, {"upload.allow_register", `true`}},
			uploadSet{AllowRegister: true, MaxFileSize: 100 << 20, ForbiddenExts: commaList{"php", "exe"}},
			[]string{"upload.max_file_size"}},
		{"a rule naming no key drops the group's overrides",
			[][2]string{{"upload.forbidden_exts", `"*"`}, {"upload.allow_register", `true`}},
			defaultUpload(),
			[]string{"upload.allow_register", "upload.forbidden_exts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			ctx := context.Background()
			rows := append(tt.rows, [2]string{"site.site_name", `"Stored"`})
			for _, r := range rows {
				if _, err := db.Exec(ctx, "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, 0)", r[0], r[1]); err != nil {
					t.Fatal(err)
				}
			}
			var logs strings.Builder
			s := newTestSettings(defaultSite(), defaultUpload())
			s.reg.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
			if err := s.reg.Open(ctx, db); err != nil {
				t.Fatalf("Open: %v", err)
			}
			for range 3 { // re-reads warn no more
				s.clock.advance(sqlstore.RefreshInterval)
				if got := s.upload.Get(ctx); !equalJSON(t, got, tt.want) {
					t.Fatalf("upload = %+v, want %+v", got, tt.want)
				}
			}
			if got := s.site.Get(ctx).SiteName; got != "Stored" {
				t.Fatalf("another group lost its override: site_name %q", got)
			}
			var warned []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if !strings.Contains(line, "level=WARN") {
					t.Fatalf("log line %q", line)
				}
				_, k, _ := strings.Cut(line, " key=")
				k, _, _ = strings.Cut(k, " ")
				warned = append(warned, k)
			}
			slices.Sort(warned)
			if !slices.Equal(warned, tt.warn) {
				t.Fatalf("warned about %q, want %q once each; log:\n%s", warned, tt.warn, logs.String())
			}
			// Saving the document as read stores a valid one.
			if err := s.reg.Put(ctx, s.reg.Document(ctx)); err != nil {
				t.Fatalf("Put of the document as read: %v", err)
			}
			for _, k := range storedKeys(t, db) {
				if slices.Contains(tt.warn, k) {
					t.Fatalf("after Put the ignored %s is still stored", k)
				}
			}
		})
	}
}
