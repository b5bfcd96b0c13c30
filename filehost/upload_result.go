package filehost

// uploadResult is the data of an upload response: exactly interface.md's
// fields, plus the file id and Lsky Pro's pathname alias, which Lsky
// clients read.
type uploadResult struct {
	ID         string `json:"id"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	Pathname   string `json:"pathname"`
	OriginName string `json:"origin_name"`
	Size       int64  `json:"size"`
	Mimetype   string `json:"mimetype"`
	Extension  string `json:"extension"`
	MD5        string `json:"md5"`
	Links      links  `json:"links"`
}

func newUploadResult(f *fileRecord) uploadResult {
	return uploadResult{ID: f.ID, Key: f.Key, Name: f.Name, Pathname: f.Key, OriginName: f.OriginName,
		Size: f.Size, Mimetype: f.Mimetype, Extension: f.Extension, MD5: f.MD5, Links: f.Links}
}
