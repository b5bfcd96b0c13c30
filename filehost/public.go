package filehost

// publicStats are the site-wide numbers anyone may see.
type publicStats struct {
	Files        int64 `json:"files"`
	Users        int64 `json:"users"`
	StorageBytes int64 `json:"storage_bytes"`
	Images       int64 `json:"images"`
	TodayUploads int64 `json:"today_uploads"`
}

// plazaItem is a public image with its owner's name; never the owner's
// email.
type plazaItem struct {
	*fileRecord
	Username string `json:"username"`
}
