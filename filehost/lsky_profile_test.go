package filehost

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestLskyStrategies(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("cleo", 0)
	env := c.Do(http.MethodGet, "/api/v1/strategies", nil).Expect(200).U()
	if !env.Status || env.Message != "success" || string(env.Data) != `{"strategies":[{"id":1,"name":"local"}]}` {
		t.Fatalf("strategies = %+v %s", env, env.Data)
	}
	expectUploadError(t, e.c.Do(http.MethodGet, "/api/v1/strategies", nil), 401, 40100)
}

func TestLskyProfileInKilobytes(t *testing.T) {
	e := newTestEnv(t)
	id, c := e.newUser("dora", 3<<20)
	up := mustUpload(t, c, "a.png", pngBytes(t, 30, 30))
	mustUpload(t, c, "b.pdf", pdfBytes)
	acctOK(t, c.Do(http.MethodPost, "/api/v1/albums", map[string]string{"name": "one"}), 201, nil)

	env := c.Do(http.MethodGet, "/api/v1/profile", nil).Expect(200).U()
	var prof lskyProfile
	if err := json.Unmarshal(env.Data, &prof); err != nil || !env.Status || len(acctKeys(t, env.Data)) != 6 {
		t.Fatalf("profile: %v %s", err, env.Data)
	}
	used, _ := e.usage(id)
	if prof.Name != "dora" || prof.Email != "dora@example.com" || prof.Capacity != 3072 ||
		prof.UsedCapacity != float64(used)/1024 || used != up.Size+int64(len(pdfBytes)) || prof.ImageNum != 2 || prof.AlbumNum != 1 {
		t.Fatalf("profile = %+v (used %d)", prof, used)
	}

	// No quota: capacity 0.
	_, free := e.newUser("eli", 0)
	env = free.Do(http.MethodGet, "/api/v1/profile", nil).Expect(200).U()
	if err := json.Unmarshal(env.Data, &prof); err != nil || prof.Capacity != 0 || prof.UsedCapacity != 0 || prof.ImageNum != 0 {
		t.Fatalf("profile = %+v", prof)
	}
	expectUploadError(t, e.c.Do(http.MethodGet, "/api/v1/profile", nil), 401, 40100)
}
