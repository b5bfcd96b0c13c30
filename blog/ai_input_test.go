package blog

import "testing"

func TestAIInputNeedsAPostOrItsText(t *testing.T) {
	for _, tt := range []struct {
		name       string
		in         aiInput
		field, msg string
	}{
		{"post id", aiInput{PostID: " 0190A000-0000-7000-8000-000000000001 "}, "", ""},
		{"title only", aiInput{Title: "T"}, "", ""},
		{"content only", aiInput{ContentMarkdown: "text"}, "", ""},
		{"nothing", aiInput{}, "post_id", "give post_id, or title and content_markdown"},
		{"only blanks", aiInput{PostID: " ", Title: " ", ContentMarkdown: "\n"}, "post_id", "give post_id, or title and content_markdown"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, tt.in.validate(), tt.field, tt.msg) })
	}
	in := aiInput{PostID: " 0190A000-0000-7000-8000-000000000001 "}
	if err := in.validate(); err != nil || in.PostID != "0190a000-0000-7000-8000-000000000001" {
		t.Fatalf("post id = %q, err = %v", in.PostID, err)
	}
}
