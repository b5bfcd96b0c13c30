package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// isJSONStart: src starts with a JSON object, "{" then (after white
// space) a key or "}". A body that starts with a Hugo shortcode ({{<) or
// another brace is not front matter.
func isJSONStart(src []byte) bool {
	if len(src) == 0 || src[0] != '{' {
		return false
	}
	rest := bytes.TrimLeft(src[1:], " \t\r\n")
	return len(rest) > 0 && (rest[0] == '"' || rest[0] == '}')
}

// parseJSON reads the JSON object at the start of src (Hugo's JSON front
// matter); the body starts after it, past the rest of its last line.
func parseJSON(doc Document, src []byte) (Document, error) {
	p := &jsonParser{src: src, dec: json.NewDecoder(bytes.NewReader(src))}
	p.dec.UseNumber()
	if _, err := p.token(); err != nil { // the opening brace
		return Document{}, err
	}
	for p.dec.More() {
		line := p.lineAt(int(p.dec.InputOffset()))
		tok, err := p.token()
		if err != nil {
			return Document{}, err
		}
		key, ok := tok.(string)
		if !ok {
			return Document{}, errorf(line, "want a key in double quotes")
		}
		line = p.lineAt(p.next())
		v, err := p.value(0)
		if err != nil {
			return Document{}, err
		}
		if prev, dup := doc.Fields[key]; dup {
			return Document{}, errorf(line, "%s is given twice (first on line %d)", key, prev.Line)
		}
		doc.Fields[key] = v
	}
	if _, err := p.token(); err != nil { // the closing brace
		return Document{}, err
	}
	end := int(p.dec.InputOffset())
	rest := src[end:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 && len(bytes.TrimSpace(rest[:i])) == 0 {
		rest = rest[i+1:]
	}
	doc.Format, doc.Body = JSON, rest
	return doc, nil
}

type jsonParser struct {
	src []byte
	dec *json.Decoder
	// The line at offset off, where the last lookup was: lookups mostly
	// move forward, so counting goes on from there.
	off, line int
}

// lineAt is the line of the file at offset off.
func (p *jsonParser) lineAt(off int) int {
	off = max(0, min(off, len(p.src)))
	if off < p.off || p.line == 0 {
		p.off, p.line = 0, 1
	}
	p.line += bytes.Count(p.src[p.off:off], []byte("\n"))
	p.off = off
	return p.line
}

// next is the offset of the next token: past white space and the colon
// or comma that InputOffset still points at.
func (p *jsonParser) next() int {
	i := int(p.dec.InputOffset())
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\r' || p.src[i] == '\n' || p.src[i] == ':' || p.src[i] == ',') {
		i++
	}
	return i
}

// token reads the next token; a syntax error names its line in plain
// words rather than the decoder's.
func (p *jsonParser) token() (json.Token, error) {
	at := p.next()
	tok, err := p.dec.Token()
	if err == nil {
		return tok, nil
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		at = int(se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || at >= len(p.src) {
		return nil, errorf(p.lineAt(len(p.src)), "the JSON front matter is not closed")
	}
	return nil, errorf(p.lineAt(at), "not valid JSON here")
}

func (p *jsonParser) value(depth int) (Value, error) {
	line := p.lineAt(p.next())
	if depth > maxDepth {
		return Value{}, errorf(line, "lists and objects nest more than %d deep", maxDepth)
	}
	tok, err := p.token()
	if err != nil {
		return Value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return Value{Kind: Null, Line: line}, nil
	case bool:
		text := "false"
		if t {
			text = "true"
		}
		return Value{Kind: Bool, Bool: t, Text: text, Line: line}, nil
	case json.Number:
		return Value{Kind: Number, Text: string(t), Line: line}, nil
	case string:
		return Value{Kind: String, Text: t, Line: line}, nil
	case json.Delim:
		v := Value{Kind: List, Line: line}
		if t == '{' {
			v.Kind = Nested
		}
		for p.dec.More() {
			if t == '{' {
				if _, err := p.token(); err != nil { // the key
					return Value{}, err
				}
			}
			item, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			if t == '[' {
				v.Items = append(v.Items, item)
			}
		}
		if _, err := p.token(); err != nil {
			return Value{}, err
		}
		return v, nil
	}
	return Value{}, errorf(line, "not valid JSON here")
}
