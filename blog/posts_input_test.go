package blog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPostInputValidation(t *testing.T) {
	const tag = "0190A000-0000-7000-8000-000000000001"
	for _, tt := range []struct {
		name       string
		in         postInput
		field, msg string
	}{
		{"title only", postInput{Title: " Hello "}, "", ""},
		{"blank title", postInput{Title: "  "}, "title", "must not be empty"},
		{"long title", postInput{Title: strings.Repeat("t", 301)}, "title", "must be at most 300 characters"},
		{"bad slug", postInput{Title: "x", Slug: "Bad Slug"}, "slug", "must be 1-100 characters of a-z, 0-9 and -"},
		{"long summary", postInput{Title: "x", Summary: strings.Repeat("s", 5001)}, "summary", "must be at most 5000 characters"},
		{"NUL in content", postInput{Title: "x", ContentMarkdown: "a\x00"}, "content_markdown", "must not contain NUL characters"},
		{"unknown status", postInput{Title: "x", Status: "live"}, "status", "must be draft, published or archived"},
		{"script cover", postInput{Title: "x", CoverImage: "javascript:alert(1)"}, "cover_image", "must be an http(s) URL or a path"},
		{"malformed category", postInput{Title: "x", CategoryID: "nope"}, "category_id", "category does not exist"},
		{"malformed tag", postInput{Title: "x", TagIDs: []string{"nope"}}, "tag_ids", `tag "nope" does not exist`},
		{"too many tags", postInput{Title: "x", TagIDs: manyIDs(51)}, "tag_ids", "at most 50 tags"},
		{"a repeated tag counts once", postInput{Title: "x", TagIDs: append(manyIDs(49), tag, strings.ToLower(tag))}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) { wantField(t, tt.in.validate(), tt.field, tt.msg) })
	}
}

func TestPostInputValidationNormalises(t *testing.T) {
	in := postInput{Title: "  Hi  ", CategoryID: " 0190A000-0000-7000-8000-0000000000AA ",
		TagIDs: []string{"0190A000-0000-7000-8000-000000000001", " 0190a000-0000-7000-8000-000000000001"}}
	if err := in.validate(); err != nil {
		t.Fatal(err)
	}
	if in.Title != "Hi" || in.Status != StatusDraft || in.ShowComments == nil || !*in.ShowComments ||
		in.CategoryID != "0190a000-0000-7000-8000-0000000000aa" || len(in.TagIDs) != 1 || in.TagIDs[0] != "0190a000-0000-7000-8000-000000000001" {
		t.Fatalf("normalised = %+v", in)
	}
}

// manyIDs returns n distinct well-formed ids.
func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("0190a000-0000-7000-8000-%012x", 0x100+i)
	}
	return out
}

func TestPostPatchChangesOnlyTheFieldsSent(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	no := false
	base := postInput{Title: "T", Slug: "t", Summary: "S", ContentMarkdown: "C", Status: StatusPublished,
		CoverImage: "/c.png", PublishedAt: &at, ShowComments: &no, CategoryID: "cat", TagIDs: []string{"x"}}
	for _, tt := range []struct {
		name  string
		patch string
		check func(in postInput) bool
	}{
		{"empty patch", `{}`, func(in postInput) bool {
			return in.Title == "T" && in.Slug == "t" && in.PublishedAt == &at && in.ShowComments == &no && len(in.TagIDs) == 1
		}},
		{"title", `{"title": "New"}`, func(in postInput) bool { return in.Title == "New" && in.Slug == "t" }},
		{"published_at null clears it", `{"published_at": null}`, func(in postInput) bool { return in.PublishedAt == nil }},
		{"published_at set", `{"published_at": "2025-01-02T03:04:05Z"}`, func(in postInput) bool {
			return in.PublishedAt != nil && in.PublishedAt.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
		}},
		{"empty category detaches", `{"category_id": ""}`, func(in postInput) bool { return in.CategoryID == "" }},
		{"empty tag list", `{"tag_ids": []}`, func(in postInput) bool { return len(in.TagIDs) == 0 }},
		{"show_comments", `{"show_comments": true}`, func(in postInput) bool { return *in.ShowComments }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p postPatch
			if err := json.Unmarshal([]byte(tt.patch), &p); err != nil {
				t.Fatal(err)
			}
			in := base
			p.apply(&in)
			if !tt.check(in) {
				t.Fatalf("after %s: %+v", tt.patch, in)
			}
		})
	}
}

func TestInputOfRecreatesThePost(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	p := &Post{PostItem: PostItem{Title: "T", Slug: "t", Summary: "S", Status: StatusPublished, CoverImage: "/c.png",
		PublishedAt: &at, ShowComments: true, CategoryID: "cat", Tags: []TermRef{{ID: "a"}, {ID: "b"}}}, ContentMarkdown: "C"}
	in := inputOf(p)
	if in.Title != "T" || in.Slug != "t" || in.Summary != "S" || in.ContentMarkdown != "C" || in.Status != StatusPublished ||
		in.CoverImage != "/c.png" || in.PublishedAt != &at || !*in.ShowComments || in.CategoryID != "cat" ||
		strings.Join(in.TagIDs, ",") != "a,b" {
		t.Fatalf("inputOf = %+v", in)
	}
}
