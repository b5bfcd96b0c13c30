package filehost

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of album fields, in characters.
const (
	maxAlbumName        = 100
	maxAlbumDescription = 1000
)

// album is an album as the API shows it.
type album struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	IsPublic    bool      `json:"is_public"`
	FileCount   int64     `json:"file_count"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type albumRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"is_public"`
}

// albumPatch holds the fields of a PATCH; nil ones stay as they are.
type albumPatch struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	IsPublic    *bool   `json:"is_public"`
}

// albumQuery is the filter and order of an album list.
type albumQuery struct {
	UserID  string
	Keyword string
	OrderBy string // created_at, updated_at or name
	Desc    bool
	Limit   int
	Offset  int
}

// validAlbumName trims a name and checks its length.
func validAlbumName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > maxAlbumName {
		return "", invalid("name must be 1-100 characters")
	}
	return name, nil
}

func validAlbumDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if utf8.RuneCountInString(d) > maxAlbumDescription {
		return "", invalid("description must be at most 1000 characters")
	}
	return d, nil
}
