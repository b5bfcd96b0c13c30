package blog

import (
	"strings"
	"time"
)

// Friend link statuses. Status is the truth; is_active is status = active.
const (
	LinkActive  = "active"
	LinkPending = "pending"
	LinkDown    = "down"
)

// FriendLink is a link to a friend's site.
type FriendLink struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Description string    `json:"description"`
	Logo        string    `json:"logo"`
	Sort        int       `json:"sort"`
	Status      string    `json:"status"`
	IsActive    bool      `json:"is_active"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// linkFilter selects friend links; Active nil means any status.
type linkFilter struct {
	Active  *bool
	Keyword string
}

// linkInput is the create and PUT body. is_active maps true to active and
// false to pending; status, when given, wins. Neither given: active.
type linkInput struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	Sort        int    `json:"sort"`
	IsActive    *bool  `json:"is_active"`
	Status      string `json:"status"`
}

type linkPatch struct {
	Name        *string `json:"name"`
	URL         *string `json:"url"`
	Description *string `json:"description"`
	Logo        *string `json:"logo"`
	Sort        *int    `json:"sort"`
	IsActive    *bool   `json:"is_active"`
	Status      *string `json:"status"`
}

func (in *linkInput) validate() error {
	in.Name = strings.TrimSpace(in.Name)
	in.URL = strings.TrimSpace(in.URL)
	if err := checkText("name", in.Name, true, 100); err != nil {
		return err
	}
	if err := checkURL("url", in.URL, true); err != nil {
		return err
	}
	if strings.HasPrefix(in.URL, "/") {
		return invalid("url", "must be an absolute http(s) URL")
	}
	if err := checkText("description", in.Description, false, 500); err != nil {
		return err
	}
	if err := checkURL("logo", in.Logo, false); err != nil {
		return err
	}
	switch {
	case in.Status != "":
	case in.IsActive == nil || *in.IsActive:
		in.Status = LinkActive
	default:
		in.Status = LinkPending
	}
	switch in.Status {
	case LinkActive, LinkPending, LinkDown:
	default:
		return invalid("status", "must be active, pending or down")
	}
	return nil
}
