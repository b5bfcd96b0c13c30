package blog

import (
	"strings"
	"time"
)

// Comment statuses.
const (
	CommentPending  = "pending"
	CommentApproved = "approved"
	CommentSpam     = "spam"
)

// PublicComment is what visitors see: never the email or the IP.
type PublicComment struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
	// AuthorHandle (user@host) and AuthorURL (the profile page) are a
	// fediverse reply's author; "" for the site's own comments.
	AuthorHandle string `json:"author_handle"`
	AuthorURL    string `json:"author_url"`
	// Fediverse: the comment came from (or, for the administrator's
	// replies, went to) the fediverse (docs/federation.md#moderation).
	Fediverse bool `json:"fediverse"`
	// ReplyTo is the id of the comment this one answers, "" for none: a
	// front-end needs it to show the administrator's replies as replies.
	ReplyTo string `json:"reply_to"`
	// apID is the Note's IRI: a fediverse reply's, or the one the blog
	// gave the administrator's reply; apActor the reply's actor IRI.
	apID, apActor string
}

// ownReply reports whether c is the administrator's reply to a fediverse
// comment: a Note of the blog's, by no remote actor.
func (c PublicComment) ownReply() bool { return c.apID != "" && c.apActor == "" }

// AdminComment is a comment as the administrator reviews it.
type AdminComment struct {
	PublicComment
	Email     string `json:"email"`
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	PostID    string `json:"post_id"`
	PostTitle string `json:"post_title"`
	Status    string `json:"status"`
}

// CommentStats counts comments of live posts by status.
type CommentStats struct {
	Total    int `json:"total"`
	Approved int `json:"approved"`
	Pending  int `json:"pending"`
	Spam     int `json:"spam"`
}

// commentInput is a visitor's submission.
type commentInput struct {
	Author  string `json:"author"`
	Email   string `json:"email"`
	Content string `json:"content"`
}

func (in *commentInput) validate() error {
	in.Author = strings.TrimSpace(in.Author)
	in.Email = strings.TrimSpace(in.Email)
	in.Content = strings.TrimSpace(in.Content)
	if err := checkText("author", in.Author, true, 50); err != nil {
		return err
	}
	if err := checkEmail("email", in.Email); err != nil {
		return err
	}
	return checkText("content", in.Content, true, 5000)
}

// commentReceipt answers a submission.
type commentReceipt struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// commentFilter selects comments for the administrator.
type commentFilter struct {
	Status  string
	Keyword string
	PostID  string
	Oldest  bool // oldest first: the console's queue of pending comments
}

func validCommentStatus(s string) bool {
	return s == CommentApproved || s == CommentPending || s == CommentSpam
}
