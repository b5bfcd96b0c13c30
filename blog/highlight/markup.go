package highlight

import "bytes"

// lexMarkup colours HTML and XML: comments and CDATA, tag names as
// keywords, attribute names as types, their values as strings. Text
// between tags, a script's included, stays plain.
func lexMarkup(o *out, src []byte) {
	n := len(src)
	plain := 0
	emit := func(class string, start, end int) {
		o.text(src[plain:start])
		o.span(class, src[start:end])
		plain = end
	}
	for i := 0; i < n; {
		rest := src[i:]
		if bytes.HasPrefix(rest, []byte("<!--")) {
			end := n
			if k := bytes.Index(rest[4:], []byte("-->")); k >= 0 {
				end = i + 4 + k + 3
			}
			emit(Comment, i, end)
			i = end
			continue
		}
		if bytes.HasPrefix(rest, []byte("<![CDATA[")) {
			end := n
			if k := bytes.Index(rest[9:], []byte("]]>")); k >= 0 {
				end = i + 9 + k + 3
			}
			emit(String, i, end)
			i = end
			continue
		}
		j := i + 1
		if src[i] != '<' || j >= n {
			i++
			continue
		}
		if src[j] == '/' || src[j] == '!' || src[j] == '?' {
			j++
		}
		if j >= n || !isLetter(src[j]) {
			i++
			continue
		}
		k := j
		for k < n && isMarkupName(src[k]) {
			k++
		}
		emit(Keyword, j, k)
		// The attributes, up to the tag's end; a "<" means the tag was
		// never closed and a new one starts.
		for k < n && src[k] != '>' && src[k] != '<' {
			switch c := src[k]; {
			case c == '"' || c == '\'':
				end := n
				if q := bytes.IndexByte(src[k+1:], c); q >= 0 {
					end = k + 1 + q + 1
				}
				emit(String, k, end)
				k = end
			case isLetter(c) || c == '_' || c == ':' || c == '@':
				e := k + 1
				for e < n && isMarkupName(src[e]) {
					e++
				}
				emit(Type, k, e)
				k = e
			default:
				k++
			}
		}
		i = k
	}
	o.text(src[plain:])
}

func isMarkupName(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '-' || c == '_' || c == ':' || c == '.' || c >= 0x80
}

// lexDiff colours a unified diff line by line: added and deleted lines,
// the file headers as keywords, the hunk headers as types, Git's
// "\ No newline at end of file" as a comment.
func lexDiff(o *out, src []byte) {
	for len(src) > 0 {
		line := src
		var nl []byte
		if k := bytes.IndexByte(src, '\n'); k >= 0 {
			line, nl = src[:k], src[k:k+1]
		}
		src = src[len(line)+len(nl):]
		class := ""
		switch {
		case bytes.HasPrefix(line, []byte("+++ ")), bytes.HasPrefix(line, []byte("--- ")),
			bytes.HasPrefix(line, []byte("diff ")), bytes.HasPrefix(line, []byte("index ")):
			class = Keyword
		case bytes.HasPrefix(line, []byte("@@")):
			class = Type
		case bytes.HasPrefix(line, []byte("+")):
			class = Added
		case bytes.HasPrefix(line, []byte("-")):
			class = Deleted
		case bytes.HasPrefix(line, []byte(`\`)):
			class = Comment
		}
		if class == "" {
			o.text(line)
		} else {
			o.span(class, line)
		}
		o.text(nl)
	}
}
