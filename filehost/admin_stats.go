package filehost

// typeStats are the records of one file type.
type typeStats struct {
	FileType string `json:"file_type"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
}

// userStats are one user's records.
type userStats struct {
	UserID   string `json:"user_id"`
	Username string `json:"username"`
	Role     string `json:"role"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
}

// adminStats is GET /api/v1/admin/stats's data. RecordBytes counts every
// record's size, as quotas do; StorageBytes counts each stored object once;
// the difference is what de-duplication saves. VariantBytes counts the
// image variants stored besides (docs/filehost.md#sizes): derived bytes,
// kept apart so that StorageBytes stays what the uploads take.
type adminStats struct {
	Users        int64       `json:"users"`
	Files        int64       `json:"files"`
	Objects      int64       `json:"objects"`
	Albums       int64       `json:"albums"`
	RecordBytes  int64       `json:"record_bytes"`
	StorageBytes int64       `json:"storage_bytes"`
	DedupSavings int64       `json:"dedup_savings_bytes"`
	VariantBytes int64       `json:"variant_bytes"`
	ByType       []typeStats `json:"by_type"`
	TopUsers     []userStats `json:"top_users"`
}

// defaultTopUsers is how many users the stats rank unless ?top= says.
const defaultTopUsers = 10

// dayStats are the uploads of one day.
type dayStats struct {
	Files, Bytes int64
}
