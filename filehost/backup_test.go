package filehost

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
)

// TestBackupKeysListsEveryObjectAndItsThumbnail: each object's key, in key
// order, followed by the key of its thumbnail when it may have one; one
// object shared by two files is listed once.
func TestBackupKeysListsEveryObjectAndItsThumbnail(t *testing.T) {
	e := newTestEnv(t)
	img := pngBytes(t, 40, 30)
	var ids []string
	for _, up := range []struct {
		name    string
		content []byte
	}{{"a.png", img}, {"b.png", img}, {"c.txt", []byte("some text")}} {
		var res struct {
			ID string `json:"id"`
		}
		httpxtest.Into(t, e.admin.Upload("/api/v1/upload", "file", up.name, up.content).Expect(200).U().Data, &res)
		ids = append(ids, res.ID)
	}
	imgObj, imgKey := e.objectOf(ids[0])
	_, textKey := e.objectOf(ids[2])
	var got []string
	err := BackupKeys(context.Background(), e.db, func(key string, thumb bool) error {
		if thumb != strings.HasPrefix(key, "thumbs/") {
			t.Errorf("%s: thumb %v", key, thumb)
		}
		got = append(got, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{imgKey, thumbKey(imgObj, false)}, {textKey}}
	if textKey < imgKey {
		want[0], want[1] = want[1], want[0]
	}
	if w := slices.Concat(want...); !slices.Equal(got, w) {
		t.Errorf("BackupKeys gave %q, want %q", got, w)
	}
}

// TestForgetIntentsLeavesNoWorkToSettle: a copy of the database keeps its
// records and loses every storage intent.
func TestForgetIntentsLeavesNoWorkToSettle(t *testing.T) {
	e := newTestEnv(t)
	e.admin.Upload("/api/v1/upload", "file", "a.txt", []byte("kept")).Expect(200)
	e.addIntent(opPlace, "2026/11/x.png", e.instance.ID, time.Minute)
	e.addIntent(opDelete, "2026/11/y.png", e.deadInstance(), time.Minute)
	if err := ForgetIntents(context.Background(), e.db); err != nil {
		t.Fatal(err)
	}
	if left := e.intents(); len(left) != 0 {
		t.Errorf("intents left: %v", left)
	}
	var n int
	if err := e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM files").Scan(&n); err != nil || n != 1 {
		t.Errorf("files = %d, %v; want the 1 uploaded", n, err)
	}
}
