package blog

import (
	"strings"
	"testing"
)

func TestCommentInputValidation(t *testing.T) {
	for _, tt := range []struct {
		name       string
		in         commentInput
		field, msg string
	}{
		{"good", commentInput{Author: " Ann ", Email: " ann@example.com ", Content: " Hi "}, "", ""},
		{"blank author", commentInput{Author: " ", Email: "a@b.example", Content: "x"}, "author", "must not be empty"},
		{"long author", commentInput{Author: strings.Repeat("a", 51), Email: "a@b.example", Content: "x"}, "author", "must be at most 50 characters"},
		{"no email", commentInput{Author: "a", Content: "x"}, "email", "must not be empty"},
		{"bad email", commentInput{Author: "a", Email: "nope", Content: "x"}, "email", "must be a valid email address"},
		{"blank content", commentInput{Author: "a", Email: "a@b.example", Content: "  "}, "content", "must not be empty"},
		{"long content", commentInput{Author: "a", Email: "a@b.example", Content: strings.Repeat("c", 5001)}, "content", "must be at most 5000 characters"},
		{"NUL in author", commentInput{Author: "a\x00", Email: "a@b.example", Content: "x"}, "author", "must not contain NUL characters"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, tt.in.validate(), tt.field, tt.msg) })
	}
}

func TestCommentInputValidationTrims(t *testing.T) {
	in := commentInput{Author: " Ann ", Email: " ann@example.com ", Content: "\n Hi \n"}
	if err := in.validate(); err != nil {
		t.Fatal(err)
	}
	if in.Author != "Ann" || in.Email != "ann@example.com" || in.Content != "Hi" {
		t.Fatalf("trimmed = %+v", in)
	}
}

func TestValidCommentStatusKnowsTheThreeStatuses(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   bool
	}{
		{CommentApproved, true}, {CommentPending, true}, {CommentSpam, true},
		{"", false}, {"Approved", false}, {"deleted", false},
	} {
		if got := validCommentStatus(tt.status); got != tt.want {
			t.Errorf("validCommentStatus(%q) = %v, want %v", tt.status, got, tt.want)
		}
	}
}
