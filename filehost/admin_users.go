package filehost

type adminUserRequest struct {
	Username   string `json:"username"`
	Email      string `json:"email"`
	Password   string `json:"password"`
	Role       string `json:"role"`
	QuotaBytes *int64 `json:"quota_bytes"` // omitted: upload.default_quota_bytes
}

type adminUserPatch struct {
	Status     *string `json:"status"`
	Role       *string `json:"role"`
	QuotaBytes *int64  `json:"quota_bytes"`
	Password   *string `json:"password"`
}
