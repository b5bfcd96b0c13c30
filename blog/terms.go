package blog

import (
	"strings"
	"time"
)

// Term is a category or a tag.
type Term struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// TermRef is how a post embeds its category and tags.
type TermRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// termTable names one of the two term tables; both have the same columns
// and the same API, so one store serves both.
type termTable string

const (
	categories termTable = "categories"
	tags       termTable = "tags"
)

// termInput is the create and PUT body of a category or tag.
type termInput struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

type termPatch struct {
	Name *string `json:"name"`
	Slug *string `json:"slug"`
}

func (in *termInput) validate() error {
	in.Name = strings.TrimSpace(in.Name)
	if err := checkText("name", in.Name, true, 100); err != nil {
		return err
	}
	if in.Slug != "" && !validSlug(in.Slug) {
		return invalid("slug", "must be 1-100 characters of a-z, 0-9 and -")
	}
	return nil
}
