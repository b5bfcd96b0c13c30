package activitypub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// MaxDepth bounds how deeply a document nests arrays and objects. Real
// activities nest a handful of levels (an Announce of a Create of a Note
// with tags, beside a @context); each level of embedded object is read
// again by its own decoder, so the bound keeps the work linear.
const MaxDepth = 32

// ErrNotActivity is the error of a document that is not one JSON object
// with a type.
var ErrNotActivity = errors.New("activitypub: not an ActivityStreams object")

// Decode reads one JSON document into an Object. It fails on invalid
// JSON, on JSON that is not an object, on an object without "type" and on
// nesting deeper than MaxDepth; it never fails on a field of an unexpected
// type. The caller bounds the size of data.
func Decode(data []byte) (*Object, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: the document is not a JSON object", ErrNotActivity)
	}
	var o Object
	if err := json.Unmarshal(data, &o); err != nil {
		if errors.Is(err, ErrNotActivity) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrNotActivity, err)
	}
	if o.Type == "" {
		return nil, fmt.Errorf("%w: no type", ErrNotActivity)
	}
	return &o, nil
}

// UnmarshalJSON reads an object tolerantly: every known field is read on
// its own, and one of an unexpected JSON type is left empty.
func (o *Object) UnmarshalJSON(data []byte) error {
	if depth(data) > MaxDepth {
		return fmt.Errorf("%w: nested deeper than %d levels", ErrNotActivity, MaxDepth)
	}
	fields, ok := fieldsOf(data)
	if !ok {
		return fmt.Errorf("%w: not a JSON object", ErrNotActivity)
	}
	*o = Object{}
	if raw, ok := fields["@context"]; ok {
		var c any
		if json.Unmarshal(raw, &c) == nil {
			o.Context = c
		}
	}
	o.ID = iriOf(fields["id"])
	o.Type = typeOf(fields["type"])

	o.Actor = refOf(fields["actor"])
	o.Object = refOf(fields["object"])
	o.Target = refOf(fields["target"])
	o.InReplyTo = refOf(fields["inReplyTo"])
	o.AttributedTo = refOf(fields["attributedTo"])
	o.To = refsOf(fields["to"])
	o.Cc = refsOf(fields["cc"])

	o.Name, _ = stringOf(fields["name"])
	o.Summary, _ = stringOf(fields["summary"])
	o.Content, _ = stringOf(fields["content"])
	o.ContentMap = stringMapOf(fields["contentMap"])
	o.MediaType, _ = stringOf(fields["mediaType"])
	o.URL = refOf(fields["url"])
	o.Published, _ = stringOf(fields["published"])
	o.Updated, _ = stringOf(fields["updated"])
	o.Tag = refsOf(fields["tag"])
	o.Attachment = refsOf(fields["attachment"])
	o.Sensitive = boolOf(fields["sensitive"])

	o.PreferredUsername, _ = stringOf(fields["preferredUsername"])
	o.Inbox = iriOf(fields["inbox"])
	o.Outbox = iriOf(fields["outbox"])
	o.Followers = iriOf(fields["followers"])
	o.Following = iriOf(fields["following"])
	if raw, ok := fields["endpoints"]; ok {
		var e Endpoints
		if e.UnmarshalJSON(raw) == nil && e != (Endpoints{}) {
			o.Endpoints = &e
		}
	}
	if raw, ok := fields["publicKey"]; ok {
		var k PublicKey
		if k.UnmarshalJSON(raw) == nil && k != (PublicKey{}) {
			o.PublicKey = &k
		}
	}
	o.Icon = imageOf(fields["icon"])
	o.Image = imageOf(fields["image"])
	o.ManuallyApprovesFollowers = boolOf(fields["manuallyApprovesFollowers"])
	if raw, ok := fields["discoverable"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) == nil && !isNull(raw) {
			o.Discoverable = &b
		}
	}

	o.Href = iriOf(fields["href"])

	if raw, ok := fields["totalItems"]; ok {
		var n int
		if json.Unmarshal(raw, &n) == nil && !isNull(raw) && n >= 0 {
			o.TotalItems = &n
		}
	}
	o.First = refOf(fields["first"])
	o.Next = refOf(fields["next"])
	o.Prev = refOf(fields["prev"])
	o.PartOf = refOf(fields["partOf"])
	o.OrderedItems = refsOf(fields["orderedItems"])
	o.Items = refsOf(fields["items"])
	return nil
}

// Text returns the best content to show: Content, else the first value of
// ContentMap in the order of its language tags.
func (o *Object) Text() string {
	if o.Content != "" {
		return o.Content
	}
	for _, lang := range slices.Sorted(maps.Keys(o.ContentMap)) {
		if v := o.ContentMap[lang]; v != "" {
			return v
		}
	}
	return ""
}

// fieldsOf reads a JSON object's members, unread; ok is false for any
// other JSON.
func fieldsOf(raw []byte) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	return fields, true
}

// stringOf reads a JSON string.
func stringOf(raw []byte) (string, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func isNull(raw []byte) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// boolOf reads true; anything else is false.
func boolOf(raw []byte) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("true"))
}

// first returns an array's first element that is not null, or raw itself
// when it is not an array.
func first(raw []byte) []byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '[' {
		return raw
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	for _, it := range items {
		if !isNull(it) {
			return it
		}
	}
	return nil
}

// iriOf reads an IRI given as a string, or as an object with an id (or
// an href, for a Link), or as an array of those (the first).
func iriOf(raw []byte) string {
	return refOf(raw).IRI()
}

// typeOf reads a type: a string, or the first string of an array (JSON-LD
// allows several).
func typeOf(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for _, it := range items {
			if s, ok := stringOf(it); ok && s != "" {
				return s
			}
		}
		return ""
	}
	s, _ := stringOf(raw)
	return s
}

// refOf reads a Ref: an IRI, an object, or the first of an array.
func refOf(raw []byte) Ref {
	raw = bytes.TrimLeft(first(raw), " \t\r\n")
	if s, ok := stringOf(raw); ok {
		return Ref{ID: s}
	}
	if len(raw) == 0 || raw[0] != '{' {
		return Ref{}
	}
	var o Object
	if o.UnmarshalJSON(raw) != nil {
		return Ref{}
	}
	return Ref{ID: o.ID, Object: &o}
}

// refsOf reads Refs: one value or an array, skipping values that are not
// an IRI or an object.
func refsOf(raw []byte) Refs {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || isNull(raw) {
		return nil
	}
	if raw[0] != '[' {
		if r := refOf(raw); !r.IsZero() {
			return Refs{r}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var rs Refs
	for _, it := range items {
		it = bytes.TrimLeft(it, " \t\r\n")
		if len(it) > 0 && it[0] == '[' {
			continue // an array in an array is no value of a property
		}
		if r := refOf(it); !r.IsZero() {
			rs = append(rs, r)
		}
	}
	return rs
}

// stringMapOf reads an object of strings (a contentMap), skipping members
// that are not strings.
func stringMapOf(raw []byte) map[string]string {
	fields, ok := fieldsOf(raw)
	if !ok {
		return nil
	}
	m := map[string]string{}
	for k, v := range fields {
		if s, ok := stringOf(v); ok {
			m[k] = s
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// imageOf reads an icon or image; nil when nothing usable is there.
func imageOf(raw []byte) *Image {
	if len(raw) == 0 {
		return nil
	}
	var im Image
	if im.UnmarshalJSON(raw) != nil || im == (Image{}) {
		return nil
	}
	return &im
}

// depth returns how deeply valid JSON nests arrays and objects.
func depth(data []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}
