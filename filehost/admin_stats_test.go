package filehost

import (
	"net/http"
	"testing"
)

func TestAdminStatsTotalsAndDedupSavings(t *testing.T) {
	e := newTestEnv(t)
	aID, a := e.newUser("amy", 0)
	bID, b := e.newUser("ben", 0)
	x := pngBytes(t, 20, 20)
	ux := mustUpload(t, a, "x.png", x)
	uy := mustUpload(t, a, "y.png", pngBytes(t, 21, 21))
	mustUpload(t, b, "x.png", x)
	doc := mustUpload(t, b, "doc.pdf", pdfBytes)

	var st struct {
		Users        int64 `json:"users"`
		Files        int64 `json:"files"`
		Objects      int64 `json:"objects"`
		RecordBytes  int64 `json:"record_bytes"`
		StorageBytes int64 `json:"storage_bytes"`
		DedupSavings int64 `json:"dedup_savings_bytes"`
		ByType       []struct {
			FileType string `json:"file_type"`
			Files    int64  `json:"files"`
			Bytes    int64  `json:"bytes"`
		} `json:"by_type"`
		TopUsers []struct {
			UserID   string `json:"user_id"`
			Username string `json:"username"`
			Files    int64  `json:"files"`
			Bytes    int64  `json:"bytes"`
		} `json:"top_users"`
	}
	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/stats", nil), 200, &st)
	if st.Users != 3 || st.Files != 4 || st.Objects != 3 ||
		st.RecordBytes != 2*ux.Size+uy.Size+doc.Size || st.StorageBytes != ux.Size+uy.Size+doc.Size || st.DedupSavings != ux.Size {
		t.Fatalf("stats = %+v", st)
	}
	if len(st.ByType) != 2 || st.ByType[0].FileType != "file" || st.ByType[0].Files != 1 || st.ByType[0].Bytes != doc.Size ||
		st.ByType[1].FileType != "image" || st.ByType[1].Files != 3 || st.ByType[1].Bytes != 2*ux.Size+uy.Size {
		t.Fatalf("by_type = %+v", st.ByType)
	}
	wantTop := []string{aID, bID}
	if ux.Size+doc.Size > ux.Size+uy.Size {
		wantTop = []string{bID, aID}
	}
	if len(st.TopUsers) != 2 || st.TopUsers[0].UserID != wantTop[0] || st.TopUsers[1].UserID != wantTop[1] ||
		st.TopUsers[0].Bytes < st.TopUsers[1].Bytes || st.TopUsers[0].Files != 2 {
		t.Fatalf("top_users = %+v", st.TopUsers)
	}

	acctOK(t, e.admin.Do(http.MethodGet, "/api/v1/admin/stats?top=1", nil), 200, &st)
	if len(st.TopUsers) != 1 || st.TopUsers[0].UserID != wantTop[0] {
		t.Fatalf("top=1: %+v", st.TopUsers)
	}
	acctErr(t, e.admin.Do(http.MethodGet, "/api/v1/admin/stats?top=zero", nil), 400, 40000)
}
