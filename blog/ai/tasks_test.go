package ai

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// promptOf pulls the system and user messages out of a recorded request.
func promptOf(t *testing.T, r seen) (system, user string) {
	t.Helper()
	msgs, _ := r.Body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", r.Body["messages"])
	}
	s, _ := msgs[0].(map[string]any)
	u, _ := msgs[1].(map[string]any)
	system, _ = s["content"].(string)
	user, _ = u["content"].(string)
	return system, user
}

func TestSummarizeAsksForTheLimitAndCleansTheReply(t *testing.T) {
	for _, p := range allProviders() {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, replyWith(p, "Summary: \"A short look at\n\nwriting Go services.\"\n"))
			c := newTestClient(t, p, f.URL)
			got, err := c.Summarize(context.Background(), "Go services", "# Intro\n\nSome *text*.", 150)
			if err != nil {
				t.Fatalf("Summarize: %v", err)
			}
			if want := "A short look at writing Go services."; got != want {
				t.Errorf("summary = %q, want %q", got, want)
			}
			system, user := promptOf(t, f.requests()[0])
			for _, want := range []string{"150", "same language", "plain text"} {
				if !strings.Contains(system, want) {
					t.Errorf("system prompt %q lacks %q", system, want)
				}
			}
			if !strings.Contains(user, "Go services") || !strings.Contains(user, "Some *text*.") {
				t.Errorf("user prompt %q lacks the title or the post", user)
			}
		})
	}
}

func TestSummarizeSendsABoundedPost(t *testing.T) {
	f := newFakeProvider(t, replyWith(ProviderOpenAI, "ok"))
	c := newTestClient(t, ProviderOpenAI, f.URL)
	post := strings.Repeat("文", MaxPromptRunes) + strings.Repeat("TAIL", 5000)
	if _, err := c.Summarize(context.Background(), "t", post, 100); err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	_, user := promptOf(t, f.requests()[0])
	if strings.Contains(user, "TAIL") {
		t.Error("the part of the post past MaxPromptRunes was sent")
	}
	if n := utf8.RuneCountInString(user); n > MaxPromptRunes+100 {
		t.Errorf("user prompt has %d runes", n)
	}
}

func TestSummarizeTrimsAnOverlongReply(t *testing.T) {
	long := strings.Repeat("Folio stores posts and files in one binary. ", 40)
	f := newFakeProvider(t, replyWith(ProviderOllama, long))
	c := newTestClient(t, ProviderOllama, f.URL)
	for _, max := range []int{1, 2, 10, 37, 120, 200} {
		got, err := c.Summarize(context.Background(), "t", "m", max)
		if err != nil {
			t.Fatalf("Summarize(%d): %v", max, err)
		}
		if n := utf8.RuneCountInString(got); n > max {
			t.Errorf("Summarize(%d) = %q, %d runes", max, got, n)
		}
		if !strings.HasSuffix(got, "…") {
			t.Errorf("Summarize(%d) = %q, want a final …", max, got)
		}
	}
}

func TestSummarizeRejectsAnEmptyReply(t *testing.T) {
	for _, reply := range []string{`""`, "Summary:", "<think>hmm</think>", "“ ”"} {
		f := newFakeProvider(t, replyWith(ProviderOpenAI, reply))
		c := newTestClient(t, ProviderOpenAI, f.URL)
		got, err := c.Summarize(context.Background(), "t", "m", 100)
		if err == nil || !errors.Is(err, ErrBadResponse) {
			t.Errorf("reply %q: Summarize = %q, %v; want ErrBadResponse", reply, got, err)
		}
	}
}

func TestCleanSummary(t *testing.T) {
	cases := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "A post about Go.", 100, "A post about Go."},
		{"whitespace and quotes", "  \"A post about Go.\"  ", 100, "A post about Go."},
		{"curly quotes", "“A post about Go.”", 100, "A post about Go."},
		{"cjk quotes", "「关于 Go 的文章。」", 100, "关于 Go 的文章。"},
		{"inner quotes kept", `"Go" is "fun"`, 100, `"Go" is "fun"`},
		{"label", "Summary: A post about Go.", 100, "A post about Go."},
		{"bold label", "**Summary:** A post about Go.", 100, "A post about Go."},
		{"label in quotes", "\"summary: A post about Go.\"", 100, "A post about Go."},
		{"chinese label", "摘要：一篇关于 Go 的文章。", 100, "一篇关于 Go 的文章。"},
		{"label word inside kept", "The summary: Go is fun.", 100, "The summary: Go is fun."},
		{"newlines collapsed", "First line.\n\nSecond\tline.\r\nThird.", 100, "First line. Second line. Third."},
		{"thinking removed", "<think>The user wants\na summary.</think>\n\nA post about Go.", 100, "A post about Go."},
		{"code fence", "```\nA post about Go.\n```", 100, "A post about Go."},
		{"exact length kept", "abcde fghij", 11, "abcde fghij"},
		{"cut on a word", "one two three four five", 16, "one two three…"},
		{"cut drops trailing comma", "one two, three four five", 12, "one two…"},
		{"long word cut mid-word", "abcdefghijklmnopqrstuvwxyz", 10, "abcdefghi…"},
		{"chinese cut at a rune", "这是一篇关于数据库和网络服务的很长的文章", 8, "这是一篇关于数…"},
		{"max one", "hello world", 1, "…"},
		{"empty", "   ", 10, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CleanSummary(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("CleanSummary(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > tc.max {
				t.Errorf("result has %d runes, max %d", n, tc.max)
			}
		})
	}
}

func TestParseTags(t *testing.T) {
	existing := []string{"Go", "PostgreSQL", "Web Development"}
	cases := []struct {
		name, in string
		max      int
		want     []string
	}{
		{"json array", `["go", "sqlite", "testing"]`, 5, []string{"Go", "sqlite", "testing"}},
		{"json in prose", `Here are the tags: ["databases", "backups"]. Hope it helps!`, 5, []string{"databases", "backups"}},
		{"json in code fence", "```json\n[\"databases\", \"backups\"]\n```", 5, []string{"databases", "backups"}},
		{"json object", `{"tags": ["databases", "backups"]}`, 5, []string{"databases", "backups"}},
		{"json non-strings skipped", `["databases", 42, null, "backups"]`, 5, []string{"databases", "backups"}},
		{"comma list", "databases, backups ,  postgresql", 5, []string{"databases", "backups", "PostgreSQL"}},
		{"label and list", "Tags: databases, backups", 5, []string{"databases", "backups"}},
		{"numbered list", "1. databases\n2) backups\n3. web development", 5, []string{"databases", "backups", "Web Development"}},
		{"bulleted list", "- databases\n* **backups**\n• `go`", 5, []string{"databases", "backups", "Go"}},
		{"hashtags", "#databases #backups", 5, []string{"databases", "backups"}},
		{"hashtag list", "#databases, #backups", 5, []string{"databases", "backups"}},
		{"chinese list", "数据库，备份、运维", 5, []string{"数据库", "备份", "运维"}},
		{"duplicates ignoring case", `["Go", "go", "GO ", "sqlite", "SQLite"]`, 5, []string{"Go", "sqlite"}},
		{"empties", `["", "  ", "databases", ""]`, 5, []string{"databases"}},
		{"empty list items", "databases,,\n\n, backups,", 5, []string{"databases", "backups"}},
		{"over-long dropped", `["` + strings.Repeat("x", 51) + `", "` + strings.Repeat("y", 50) + `"]`, 5, []string{strings.Repeat("y", 50)}},
		{"sentences dropped", "I think these would work well, databases", 5, []string{"databases"}},
		{"quotes trimmed", `"databases", 'backups'`, 5, []string{"databases", "backups"}},
		{"trailing period", "databases, backups.", 5, []string{"databases", "backups"}},
		{"capped at max", `["a", "b", "c", "d", "e", "f", "g"]`, 5, []string{"a", "b", "c", "d", "e"}},
		{"max two", "a, b, c", 2, []string{"a", "b"}},
		{"thinking removed", "<think>maybe [x]</think>[\"databases\"]", 5, []string{"databases"}},
		{"garbage", "{{{{", 5, nil},
		{"broken json", `{"tags": [`, 5, nil},
		{"empty", "", 5, nil},
		{"array of numbers", "[1, 2, 3]", 5, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseTags(tc.in, existing, tc.max)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseTags(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSuggestTagsPrefersExistingNames(t *testing.T) {
	for _, p := range allProviders() {
		t.Run(p, func(t *testing.T) {
			f := newFakeProvider(t, replyWith(p, `["postgresql", "Backups", "backups", "replication"]`))
			c := newTestClient(t, p, f.URL)
			got, err := c.SuggestTags(context.Background(), "Backing up Postgres", "pg_dump and WAL",
				[]string{"PostgreSQL", "Go", "  ", strings.Repeat("z", 60)}, 5)
			if err != nil {
				t.Fatalf("SuggestTags: %v", err)
			}
			if want := []string{"PostgreSQL", "Backups", "replication"}; !reflect.DeepEqual(got, want) {
				t.Errorf("tags = %q, want %q", got, want)
			}
			system, user := promptOf(t, f.requests()[0])
			if !strings.Contains(system, "PostgreSQL, Go") || strings.Contains(system, "zzzz") {
				t.Errorf("system prompt %q does not list the usable existing tags", system)
			}
			if !strings.Contains(system, "at most 5") || !strings.Contains(system, "JSON array") {
				t.Errorf("system prompt %q does not ask for a JSON array of at most 5", system)
			}
			if !strings.Contains(user, "Backing up Postgres") {
				t.Errorf("user prompt %q lacks the title", user)
			}
		})
	}
}

func TestSuggestTagsGarbageIsAnError(t *testing.T) {
	for _, reply := range []string{"{}", `{"foo": 1}`, "[]", "I'm unable to help with that request right now.", "<html><body>error</body></html>"} {
		f := newFakeProvider(t, replyWith(ProviderOpenAI, reply))
		c := newTestClient(t, ProviderOpenAI, f.URL)
		got, err := c.SuggestTags(context.Background(), "t", "m", nil, 0)
		if !errors.Is(err, ErrBadResponse) {
			t.Errorf("reply %q: SuggestTags = %q, %v; want ErrBadResponse", reply, got, err)
		}
	}
}

func TestSuggestTagsPassesProviderErrorsOn(t *testing.T) {
	f := newFakeProvider(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":"model \"x\" not found"}`, http.StatusNotFound)
	})
	c := newTestClient(t, ProviderOllama, f.URL)
	_, err := c.SuggestTags(context.Background(), "t", "m", nil, 5)
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusNotFound || !strings.Contains(err.Error(), `model "x" not found`) {
		t.Errorf("error = %v, want the provider's 404 and message", err)
	}
}
