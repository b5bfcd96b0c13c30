package ghostdoc

import (
	"encoding/json"
	"errors"
	"html"
	"math"
	"strings"
)

// A Mobiledoc document (versions 0.2 and 0.3, as Ghost 1 to 4 store it) is
// a JSON object of four lists that refer to one another by index:
//
//	{"version": "0.3.1",
//	 "markups":  [["strong"], ["a", ["href", "https://…"]]],
//	 "atoms":    [["soft-return", "", {}]],
//	 "cards":    [["image", {"src": "…", "caption": "…"}]],
//	 "sections": [[1, "p", [[0, [1], 1, "a link"], [1, [], 0, 0]]],
//	              [3, "ul", [[[0, [], 0, "an item"]]]],
//	              [10, 0]]}
//
// (Version 0.2 has no "markups": "sections" is [markups, sections].)
// Sections: [1, tag, markers] a text section (p, h1-h6, blockquote, aside,
// pull-quote); [2, src] an image; [3, "ul"|"ol", items] a list, each item a
// list of markers; [10, card index] a card ([10, name, payload] in 0.2).
// A marker is [0, opened, closed, text] or [1, opened, closed, atom index]
// (in 0.2 [opened, closed, text]): opened lists the markups that open
// before it, closed how many of the open ones close after it.

// Mobiledoc section kinds.
const (
	markupSection = 1
	imageSection  = 2
	listSection   = 3
	cardSection   = 10
)

// Mobiledoc reads a Mobiledoc document.
func Mobiledoc(src []byte) (*Doc, error) {
	var top map[string]any
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, errors.New("the Mobiledoc document is not a JSON object")
	}
	sections, ok := top["sections"].([]any)
	if !ok {
		return nil, errors.New("the Mobiledoc document has no list of sections")
	}
	m := &mobiledoc{builder: newBuilder()}
	m.markups, _ = top["markups"].([]any)
	if v, _ := top["version"].(string); strings.HasPrefix(v, "0.2") {
		// 0.2 keeps its markups with its sections: [markups, sections].
		m.markups, _ = at(sections, 0).([]any)
		sections, _ = at(sections, 1).([]any)
	}
	m.atoms, _ = top["atoms"].([]any)
	m.cards, _ = top["cards"].([]any)
	for _, s := range sections {
		m.section(s)
	}
	return m.done(), nil
}

type mobiledoc struct {
	*builder
	markups, atoms, cards []any
}

func (m *mobiledoc) section(v any) {
	s, _ := v.([]any)
	kind, ok := index(at(s, 0))
	if !ok {
		m.loss(LossUnknownPart)
		return
	}
	switch kind {
	case markupSection:
		tag, _ := at(s, 1).(string)
		markers, _ := at(s, 2).([]any)
		open, end := "<p>", "</p>"
		switch t := strings.ToLower(tag); t {
		case "h1", "h2", "h3", "h4", "h5", "h6":
			open, end = "<"+t+">", "</"+t+">"
		case "blockquote", "aside", "pull-quote":
			open, end = "<blockquote><p>", "</p></blockquote>"
		}
		if body := m.markers(markers); strings.TrimSpace(body) != "" {
			m.html(open + body + end)
		}
	case imageSection:
		src, _ := at(s, 1).(string)
		m.html(figure(src, "", "", "", ""))
	case listSection:
		tag, _ := at(s, 1).(string)
		items, _ := at(s, 2).([]any)
		name := "ul"
		if strings.ToLower(tag) == "ol" {
			name = "ol"
		}
		var b strings.Builder
		for _, it := range items {
			markers, _ := it.([]any)
			if body := m.markers(markers); strings.TrimSpace(body) != "" {
				b.WriteString("<li>" + body + "</li>")
			}
		}
		if b.Len() > 0 {
			m.html("<" + name + ">" + b.String() + "</" + name + ">")
		}
	case cardSection:
		var name string
		var payload map[string]any
		if n, ok := at(s, 1).(string); ok { // 0.2: the card inline
			name = n
			payload, _ = at(s, 2).(map[string]any)
		} else if i, ok := index(at(s, 1)); ok {
			card, _ := at(m.cards, i).([]any)
			name, _ = at(card, 0).(string)
			payload, _ = at(card, 1).(map[string]any)
		}
		if name == "" {
			m.loss(LossUnknownPart)
			return
		}
		m.card(name, payload)
	default:
		m.loss(LossUnknownPart)
	}
}

// markers writes a section's markers as HTML: the text escaped, the
// markups Markdown can say as their elements, the others as their text.
func (m *mobiledoc) markers(markers []any) string {
	var b strings.Builder
	var stack []string // the end tags of the open markups, "" for one without
	for _, v := range markers {
		mk, _ := v.([]any)
		var opened []any
		var closed, value any
		isAtom := false
		if o, ok := at(mk, 0).([]any); ok { // 0.2: [opened, closed, text]
			opened, closed, value = o, at(mk, 1), at(mk, 2)
		} else {
			kind, _ := index(at(mk, 0))
			isAtom = kind == 1
			opened, _ = at(mk, 1).([]any)
			closed, value = at(mk, 2), at(mk, 3)
		}
		for _, o := range opened {
			i, _ := index(o)
			markup, _ := at(m.markups, i).([]any)
			start, end := markupTags(markup)
			b.WriteString(start)
			stack = append(stack, end)
		}
		if isAtom {
			i, _ := index(value)
			atom, _ := at(m.atoms, i).([]any)
			switch name, _ := at(atom, 0).(string); name {
			case "soft-return":
				b.WriteString("<br>")
			default:
				t, _ := at(atom, 1).(string)
				b.WriteString(html.EscapeString(t))
			}
		} else if t, ok := value.(string); ok {
			b.WriteString(html.EscapeString(t))
		}
		n, _ := index(closed)
		for ; n > 0 && len(stack) > 0; n-- {
			b.WriteString(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
	}
	for len(stack) > 0 {
		b.WriteString(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	return b.String()
}

// markupTags are the start and end tags of a markup ["a", ["href", "…"]];
// none for a markup Markdown has no form of (u, sub, sup, …).
func markupTags(markup []any) (start, end string) {
	tag, _ := at(markup, 0).(string)
	switch strings.ToLower(tag) {
	case "strong", "b":
		return "<strong>", "</strong>"
	case "em", "i":
		return "<em>", "</em>"
	case "code":
		return "<code>", "</code>"
	case "s", "strike", "del":
		return "<s>", "</s>"
	case "a":
		attrs, _ := at(markup, 1).([]any)
		var href, title string
		for i := 0; i+1 < len(attrs); i += 2 {
			k, _ := attrs[i].(string)
			v, _ := attrs[i+1].(string)
			switch strings.ToLower(k) {
			case "href":
				href = v
			case "title":
				title = v
			}
		}
		a := `<a href="` + html.EscapeString(href) + `"`
		if title != "" {
			a += ` title="` + html.EscapeString(title) + `"`
		}
		return a + ">", "</a>"
	}
	return "", ""
}

// at is l[i], or nil out of range.
func at(l []any, i int) any {
	if i < 0 || i >= len(l) {
		return nil
	}
	return l[i]
}

// index reads a JSON number that is a small whole number.
func index(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return -1, false
	}
	return int(f), true
}
