package blog

import "strings"

// aiInput names the post to work on: a saved post, or the text an editor
// has not saved yet.
type aiInput struct {
	PostID          string `json:"post_id"`
	Title           string `json:"title"`
	ContentMarkdown string `json:"content_markdown"`
}

// validate normalises the post id and asks for something to work on.
func (in *aiInput) validate() error {
	in.PostID = strings.ToLower(strings.TrimSpace(in.PostID))
	if in.PostID == "" && strings.TrimSpace(in.Title) == "" && strings.TrimSpace(in.ContentMarkdown) == "" {
		return invalid("post_id", "give post_id, or title and content_markdown")
	}
	return nil
}
