package blog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The archive's Markdown files start with front matter: a block between
// two "---" lines of "key: value" lines, in the subset of YAML that every
// front-matter reader understands (docs/export-import.md#front-matter).
// Strings are written double-quoted with JSON's escapes, which YAML's
// double-quoted style shares, so any text survives a round trip exactly;
// lists are JSON arrays (YAML flow sequences); times are RFC 3339 in UTC,
// or null.

const frontMatterFence = "---"

// fmWriter builds a front-matter block.
type fmWriter struct{ b bytes.Buffer }

func newFMWriter() *fmWriter {
	w := &fmWriter{}
	w.b.WriteString(frontMatterFence + "\n")
	return w
}

func (w *fmWriter) str(key, v string) {
	w.b.WriteString(key + ": " + quoteYAML(v) + "\n")
}

func (w *fmWriter) boolean(key string, v bool) {
	w.b.WriteString(key + ": " + strconv.FormatBool(v) + "\n")
}

func (w *fmWriter) integer(key string, v int) {
	w.b.WriteString(key + ": " + strconv.Itoa(v) + "\n")
}

func (w *fmWriter) time(key string, t *time.Time) {
	if t == nil {
		w.b.WriteString(key + ": null\n")
		return
	}
	w.b.WriteString(key + ": " + t.UTC().Format(time.RFC3339Nano) + "\n")
}

// head writes the fields that posts and pages share, first in both files.
func (w *fmWriter) head(title, slug, status string, published, created, updated *time.Time) {
	w.str("title", title)
	w.str("slug", slug)
	w.str("status", status)
	w.time("published_at", published)
	w.time("created_at", created)
	w.time("updated_at", updated)
}

func (w *fmWriter) list(key string, vs []string) {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = quoteYAML(v)
	}
	w.b.WriteString(key + ": [" + strings.Join(parts, ", ") + "]\n")
}

// finish closes the block and appends the body.
func (w *fmWriter) finish(body string) []byte {
	w.b.WriteString(frontMatterFence + "\n")
	w.b.WriteString(body)
	return w.b.Bytes()
}

// quoteYAML quotes s as a JSON string without HTML escaping: a valid YAML
// double-quoted scalar.
func quoteYAML(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// frontMatter holds the raw values of a front-matter block by key.
type frontMatter map[string]string

// errNoFrontMatter: the file does not start with a front-matter block.
var errNoFrontMatter = errors.New("no front matter (the file must start with a --- line)")

// parseFrontMatter splits a file into its front matter and its body, which
// is everything after the closing fence, byte for byte.
func parseFrontMatter(src []byte) (frontMatter, string, error) {
	s := string(src)
	s = strings.TrimPrefix(s, "\ufeff")
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimRight(first, "\r") != frontMatterFence {
		return nil, "", errNoFrontMatter
	}
	fm := frontMatter{}
	for n := 2; ; n++ {
		line, after, ok := strings.Cut(rest, "\n")
		if strings.TrimRight(line, "\r") == frontMatterFence {
			return fm, after, nil
		}
		if !ok {
			return nil, "", errors.New("front matter has no closing --- line")
		}
		rest = after
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\"'") {
			return nil, "", fmt.Errorf("front matter line %d: want key: value", n)
		}
		if _, dup := fm[key]; dup {
			return nil, "", fmt.Errorf("front matter line %d: %s given twice", n, key)
		}
		fm[key] = strings.TrimSpace(value)
	}
}

// str reads a string: double-quoted with JSON escapes, or plain text as a
// person may write it; "" when absent.
func (fm frontMatter) str(key string) (string, error) {
	raw, ok := fm[key]
	if !ok || raw == "" || raw == "null" || raw == "~" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return "", fmt.Errorf("front matter %s: not a valid quoted string", key)
		}
		return s, nil
	}
	if raw[0] == '\'' && len(raw) >= 2 && raw[len(raw)-1] == '\'' {
		return strings.ReplaceAll(raw[1:len(raw)-1], "''", "'"), nil
	}
	return raw, nil
}

// boolean reads true or false; def when absent.
func (fm frontMatter) boolean(key string, def bool) (bool, error) {
	raw, ok := fm[key]
	if !ok || raw == "" {
		return def, nil
	}
	switch raw {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("front matter %s: want true or false", key)
}

// integer reads a whole number; 0 when absent.
func (fm frontMatter) integer(key string) (int, error) {
	raw, ok := fm[key]
	if !ok || raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, fmt.Errorf("front matter %s: want a whole number", key)
	}
	return n, nil
}

// time reads an RFC 3339 time, quoted or not; nil when absent or null.
func (fm frontMatter) time(key string) (*time.Time, error) {
	s, err := fm.str(key)
	if err != nil || s == "" {
		return nil, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, fmt.Errorf("front matter %s: want an RFC 3339 time", key)
	}
	t = t.UTC()
	return &t, nil
}

// list reads a flow sequence of strings ([a, "b"]); nil when absent.
func (fm frontMatter) list(key string) ([]string, error) {
	raw, ok := fm[key]
	if !ok || raw == "" || raw == "[]" {
		return nil, nil
	}
	var out []string
	if json.Unmarshal([]byte(raw), &out) == nil {
		return out, nil
	}
	// Items as a person may write them: [news, "go"]
	bad := fmt.Errorf("front matter %s: want a list such as [a, b]", key)
	if !strings.HasPrefix(raw, "[") || !strings.HasSuffix(raw, "]") {
		return nil, bad
	}
	rest := strings.TrimSpace(raw[1 : len(raw)-1])
	for rest != "" {
		var item string
		if rest[0] == '"' {
			end := 1
			for end < len(rest) && rest[end] != '"' {
				if rest[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(rest) || json.Unmarshal([]byte(rest[:end+1]), &item) != nil {
				return nil, bad
			}
			rest = strings.TrimSpace(rest[end+1:])
		} else {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				i = len(rest)
			}
			item = strings.TrimSpace(rest[:i])
			if item == "" || strings.ContainsAny(item, "\"[]{}") {
				return nil, bad
			}
			rest = rest[i:]
		}
		out = append(out, item)
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return nil, bad
		}
		rest = strings.TrimSpace(rest[1:])
	}
	return out, nil
}
