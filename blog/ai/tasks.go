package ai

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what is sent and accepted.
const (
	// MaxPromptRunes is how much of a post's Markdown goes to the provider:
	// enough for the gist, and a bound on cost and latency.
	MaxPromptRunes = 8000
	// MaxTagRunes is the longest tag name kept.
	MaxTagRunes = 50
	// DefaultSummaryRunes applies when Summarize is given no positive length.
	DefaultSummaryRunes = 200
	// DefaultMaxTags applies when SuggestTags is given no positive count.
	DefaultMaxTags = 5
	// maxTagWords: a "tag" of more words is a sentence the model wrote.
	maxTagWords = 4
	// maxExistingTags and maxExistingRunes bound the list of existing tags
	// put in the prompt.
	maxExistingTags  = 200
	maxExistingRunes = 4000
)

// Summarize asks for a plain-text summary of the post, in the post's own
// language, of at most maxRunes runes, and returns it cleaned and cut to
// maxRunes.
func (c *Client) Summarize(ctx context.Context, title, markdown string, maxRunes int) (string, error) {
	if maxRunes <= 0 {
		maxRunes = DefaultSummaryRunes
	}
	system := fmt.Sprintf("You summarize blog posts. Write the summary in the same language as the post. "+
		"Reply with the summary only: plain text, one paragraph, no Markdown, no quotation marks, "+
		"no heading or label, at most %d characters.", maxRunes)
	reply, err := c.Complete(ctx, system, postPrompt(title, markdown))
	if err != nil {
		return "", err
	}
	s := CleanSummary(reply, maxRunes)
	if s == "" {
		return "", c.fail(200, 0, false, ErrBadResponse, "reply holds no summary")
	}
	return s, nil
}

// SuggestTags asks for up to max short tags for the post, preferring the
// names in existing, and returns them parsed, deduplicated and capped.
// Where a suggestion matches an existing name but for case, the existing
// spelling is returned.
func (c *Client) SuggestTags(ctx context.Context, title, markdown string, existing []string, max int) ([]string, error) {
	if max <= 0 {
		max = DefaultMaxTags
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You choose tags for blog posts. Suggest at most %d short tags (one to three words each) "+
		"that describe the post's topics, in the post's own language. ", max)
	if known := existingList(existing); known != "" {
		b.WriteString("Prefer these existing tags, spelled exactly as given, when they fit: ")
		b.WriteString(known)
		b.WriteString(". ")
	}
	b.WriteString(`Reply with a JSON array of strings only, for example ["go", "databases"].`)
	reply, err := c.Complete(ctx, b.String(), postPrompt(title, markdown))
	if err != nil {
		return nil, err
	}
	tags := ParseTags(reply, existing, max)
	if len(tags) == 0 {
		return nil, c.fail(200, 0, false, ErrBadResponse, "reply holds no usable tags")
	}
	return tags, nil
}

func postPrompt(title, markdown string) string {
	body := strings.TrimSpace(markdown)
	if utf8.RuneCountInString(body) > MaxPromptRunes {
		body = string([]rune(body)[:MaxPromptRunes]) + "\n[…]"
	}
	return "Title: " + strings.TrimSpace(title) + "\n\nPost (Markdown):\n" + body
}

func existingList(existing []string) string {
	var parts []string
	runes := 0
	for _, t := range existing {
		t = strings.TrimSpace(t)
		n := utf8.RuneCountInString(t)
		if t == "" || n > MaxTagRunes {
			continue
		}
		if len(parts) >= maxExistingTags || runes+n > maxExistingRunes {
			break
		}
		parts = append(parts, t)
		runes += n + 2
	}
	return strings.Join(parts, ", ")
}

var (
	// Reasoning models (DeepSeek-R1, Qwen3 on Ollama) put their thinking
	// before the answer.
	thinkBlock = regexp.MustCompile(`(?is)<think>.*?</think>`)
	// A label the model put before the answer despite the prompt.
	summaryLabel = regexp.MustCompile(`(?i)^[*_#\s]*(tl;?dr|summary|摘要|总结|概要|要約|résumé|resumen|zusammenfassung)[*_\s]*[:：][*_\s]*`)
	tagsLabel    = regexp.MustCompile(`(?i)^[*_#\s]*(suggested tags|tags|标签|タグ)[*_\s]*[:：][*_\s]*`)
	listMarker   = regexp.MustCompile(`^(?:[-*•·]+|\d{1,3}[.)、]|\(\d{1,3}\))\s*`)
	codeFence    = regexp.MustCompile("(?s)^```[a-zA-Z]*\\s*(.*?)\\s*```$")
)

// quotePairs are the quotes a model may wrap its whole answer in, as
// opening and closing rune pairs.
const quotePairs = "\"\"''``“”‘’«»「」『』„“"

// CleanSummary turns a model's reply into a summary: thinking, labels and
// wrapping quotes removed, whitespace collapsed to single spaces, and cut to
// maxRunes runes, on a word boundary where there is one, ending in "…".
func CleanSummary(reply string, maxRunes int) string {
	s := thinkBlock.ReplaceAllString(reply, "")
	s = strings.TrimSpace(s)
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for range 3 { // a label may sit inside quotes or quotes inside a label
		before := s
		s = summaryLabel.ReplaceAllString(s, "")
		s = trimQuotes(strings.TrimSpace(s))
		if s == before {
			break
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	return cutSummary(s, maxRunes)
}

func trimQuotes(s string) string {
	for {
		trimmed := false
		pairs := []rune(quotePairs)
		for i := 0; i+1 < len(pairs); i += 2 {
			open, closing := string(pairs[i]), string(pairs[i+1])
			if len(s) >= len(open)+len(closing) && strings.HasPrefix(s, open) && strings.HasSuffix(s, closing) {
				inner := s[len(open) : len(s)-len(closing)]
				// "a" and "b" is not a quoted answer: keep it.
				if open == closing && strings.Contains(inner, open) {
					continue
				}
				s = strings.TrimSpace(inner)
				trimmed = true
			}
		}
		if !trimmed {
			return s
		}
	}
}

// cutSummary cuts s to max runes including a final "…", at the last space
// when it is not too far back (text without spaces, such as Chinese, is
// cut at a rune).
func cutSummary(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	if max == 1 {
		return "…"
	}
	cut := r[:max-1]
	for i := len(cut) - 1; i >= len(cut)*2/3; i-- {
		if unicode.IsSpace(cut[i]) {
			cut = cut[:i]
			break
		}
	}
	out := strings.TrimRightFunc(string(cut), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—、，；：(", r)
	})
	return out + "…"
}

// ParseTags reads a model's tag reply: a JSON array (also inside a code
// fence, or in an object's "tags" field) or a list separated by commas,
// newlines or semicolons, possibly bulleted or numbered. Tags are trimmed,
// deduplicated ignoring case, spelled as in existing where they match one,
// and capped at max; empty, over-long and sentence-like items are dropped,
// and so are items with brackets or quotes left in them (broken JSON).
func ParseTags(reply string, existing []string, max int) []string {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(reply, ""))
	if m := codeFence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	items, ok := jsonTags(s)
	if !ok {
		items = listTags(s)
	}
	known := make(map[string]string, len(existing))
	for _, e := range existing {
		if e = strings.TrimSpace(e); e != "" {
			known[strings.ToLower(e)] = e
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		t := normalizeTag(it)
		if t == "" || utf8.RuneCountInString(t) > MaxTagRunes || len(strings.Fields(t)) > maxTagWords ||
			strings.ContainsAny(t, "{}[]<>`\"") {
			continue
		}
		key := strings.ToLower(t)
		if seen[key] {
			continue
		}
		seen[key] = true
		if k, ok := known[key]; ok {
			t = k
		}
		out = append(out, t)
		if len(out) == max {
			break
		}
	}
	return out
}

// jsonTags finds a JSON array of strings, or an object with a "tags" array,
// in s. Non-string elements are skipped.
func jsonTags(s string) ([]string, bool) {
	var arr []any
	if i, j := strings.IndexByte(s, '['), strings.LastIndexByte(s, ']'); i >= 0 && j > i {
		if json.Unmarshal([]byte(s[i:j+1]), &arr) != nil {
			arr = nil
		}
	}
	if arr == nil {
		var obj struct {
			Tags []any `json:"tags"`
		}
		if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i &&
			json.Unmarshal([]byte(s[i:j+1]), &obj) == nil && obj.Tags != nil {
			arr = obj.Tags
		}
	}
	if arr == nil {
		return nil, false
	}
	var out []string
	for _, v := range arr {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out, true
}

func listTags(s string) []string {
	s = tagsLabel.ReplaceAllString(s, "")
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == '\n' || r == ';' || r == '，' || r == '、' || r == '；'
	}) {
		// "#go #databases": hashtags separated by spaces only.
		if words := strings.Fields(part); len(words) > 1 && allHashtags(words) {
			out = append(out, words...)
			continue
		}
		out = append(out, part)
	}
	return out
}

func allHashtags(words []string) bool {
	for _, w := range words {
		if !strings.HasPrefix(w, "#") {
			return false
		}
	}
	return true
}

func normalizeTag(t string) string {
	t = strings.TrimSpace(t)
	t = listMarker.ReplaceAllString(t, "")
	t = strings.Trim(t, "*_") // Markdown emphasis
	t = trimQuotes(strings.TrimSpace(t))
	t = strings.TrimLeft(t, "#")
	t = strings.TrimRight(t, ".。!！")
	return strings.Join(strings.Fields(t), " ")
}
