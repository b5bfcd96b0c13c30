package filehost

import (
	"time"
)

// lskyImage is an item of Lsky Pro's image list: the upload result plus
// dimensions and date.
type lskyImage struct {
	uploadResult
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Date   string `json:"date"`
}

// lskyPage is Lsky Pro's paged data.
type lskyPage struct {
	CurrentPage int         `json:"current_page"`
	LastPage    int         `json:"last_page"`
	PerPage     int         `json:"per_page"`
	Total       int         `json:"total"`
	Data        []lskyImage `json:"data"`
}

// lskyDate is how Lsky Pro shows dates.
func lskyDate(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
