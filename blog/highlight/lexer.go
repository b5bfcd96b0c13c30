package highlight

import (
	"bytes"
	"strings"
)

// lexGeneric colours code of a language described by l. Each turn of the
// loop consumes at least one byte and every look ahead stops at the token
// it measures, which the loop then skips: the work is linear.
func lexGeneric(o *out, l *language, src []byte) {
	n := len(src)
	plain := 0 // the start of the code not yet written
	emit := func(class string, start, end int) {
		o.text(src[plain:start])
		o.span(class, src[start:end])
		plain = end
	}
	lineStart := true // only blanks since the line began
	for i := 0; i < n; {
		c := src[i]
		if c == '\n' {
			lineStart = true
			i++
			continue
		}
		if end := l.comment(src, i); end > i {
			emit(Comment, i, end)
			i = end
			continue
		}
		if l.preproc && c == '#' && lineStart {
			j := i + 1
			for j < n && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			j = nameEnd(l, src, j)
			emit(Keyword, i, j)
			i = j
			lineStart = false
			// #include <file.h>: the file is a string.
			for j < n && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < n && src[j] == '<' {
				if k := bytes.IndexAny(src[j:], ">\n"); k > 0 && src[j+k] == '>' {
					emit(String, j, j+k+1)
					i = j + k + 1
				}
			}
			continue
		}
		lineStart = lineStart && (c == ' ' || c == '\t' || c == '\r')
		if end := l.str(src, i); end > i {
			class := String
			if l.keys && followedByColon(src, end) {
				class = Type
			}
			emit(class, i, end)
			i = end
			continue
		}
		if l.vars && c == '$' {
			if end := shellVar(src, i); end > i+1 {
				emit(Type, i, end)
				i = end
				continue
			}
		}
		if l.hexColor && c == '#' {
			j := i + 1
			for j < n && isHex(src[j]) {
				j++
			}
			if k := j - i - 1; (k == 3 || k == 4 || k == 6 || k == 8) && (j == n || !isNamePart(l, src[j])) {
				emit(Number, i, j)
				i = j
				continue
			}
		}
		if isDigit(c) || c == '.' && i+1 < n && isDigit(src[i+1]) {
			j := numberEnd(src, i)
			emit(Number, i, j)
			i = j
			continue
		}
		if isNameStart(l, src, i) {
			j := nameEnd(l, src, i+1)
			if class := l.classOf(src, i, j); class != "" {
				emit(class, i, j)
			}
			i = j
			continue
		}
		i++
	}
	o.text(src[plain:])
}

// comment is the end of the comment that starts at i, or i.
func (l *language) comment(src []byte, i int) int {
	rest := src[i:]
	for _, bc := range l.blockComments {
		if bytes.HasPrefix(rest, []byte(bc[0])) {
			if k := bytes.Index(rest[len(bc[0]):], []byte(bc[1])); k >= 0 {
				return i + len(bc[0]) + k + len(bc[1])
			}
			return len(src)
		}
	}
	for _, lc := range l.lineComments {
		if !bytes.HasPrefix(rest, []byte(lc)) {
			continue
		}
		if l.wordComment && i > 0 && !isBlank(src[i-1]) && !strings.ContainsRune(";|&(", rune(src[i-1])) {
			continue
		}
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			return i + k
		}
		return len(src)
	}
	return i
}

// str is the end of the string that starts at i, or i. A string a
// language keeps on one line and that is not closed there ends with its
// line, so that one stray quote does not colour the rest of the code.
func (l *language) str(src []byte, i int) int {
	c := src[i]
	n := len(src)
	if l.triple && (c == '"' || c == '\'') && i+2 < n && src[i+1] == c && src[i+2] == c {
		if k := bytes.Index(src[i+3:], src[i:i+3]); k >= 0 {
			return i + 3 + k + 3
		}
		return n
	}
	escapes := strings.IndexByte(l.quotes, c) >= 0
	if !escapes && strings.IndexByte(l.rawQuotes, c) < 0 {
		if !(l.charQuote && c == '\'') {
			return i
		}
		// A Rust character ('a', '\n', 'é') or a lifetime ('a).
		if i+1 < n && src[i+1] == '\\' {
			escapes = true
		} else {
			k := i + 1
			for k < n && k < i+5 && src[k] >= 0x80 && (k == i+1 || src[k]&0xc0 == 0x80) {
				k++
			}
			if k == i+1 {
				k++
			}
			if k < n && src[k] == '\'' && src[i+1] != '\'' && src[i+1] != '\n' {
				return k + 1
			}
			return i
		}
	}
	multiline := strings.IndexByte(l.multiline, c) >= 0
	for j := i + 1; j < n; j++ {
		switch src[j] {
		case '\\':
			if escapes {
				j++
			}
		case c:
			return j + 1
		case '\n':
			if !multiline {
				return j
			}
		}
	}
	return n
}

// classOf is the class of the name src[i:j], or "" for none.
func (l *language) classOf(src []byte, i, j int) string {
	w := string(src[i:j])
	if w[0] == '@' && l.atClass != "" {
		return l.atClass
	}
	key := w
	if l.fold {
		key = strings.ToLower(w)
	}
	switch {
	case l.keywords[key]:
		return Keyword
	case l.types[key]:
		return Type
	case l.keys && followedByColon(src, j):
		return Type
	case l.funcs && j < len(src) && src[j] == '(':
		return Function
	case l.macroBang && j+1 < len(src) && src[j] == '!' && src[j+1] != '=':
		return Function
	case l.capsTypes && w[0] >= 'A' && w[0] <= 'Z' && strings.ContainsAny(w, "abcdefghijklmnopqrstuvwxyz"):
		return Type
	}
	return ""
}

// followedByColon reports whether src[j:] is blanks then one ":" (a key),
// not "::" (a path).
func followedByColon(src []byte, j int) bool {
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return j < len(src) && src[j] == ':' && (j+1 == len(src) || src[j+1] != ':')
}

// maxShellVar bounds the length of a ${…} expansion.
const maxShellVar = 256

// shellVar is the end of the shell variable at i ($name, ${…}, $1, $?).
func shellVar(src []byte, i int) int {
	n := len(src)
	j := i + 1
	switch {
	case j >= n:
		return i
	case src[j] == '{':
		// Bounded: a "${" never closed must not send every later "${"
		// looking to the end of the code again.
		end := min(n, j+maxShellVar)
		if k := bytes.IndexAny(src[j:end], "}\n"); k > 0 && src[j+k] == '}' {
			return j + k + 1
		}
		return i
	case isDigit(src[j]) || strings.IndexByte("@#?$!*-", src[j]) >= 0:
		return j + 1
	case isLetter(src[j]) || src[j] == '_':
		for j < n && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '_') {
			j++
		}
		return j
	}
	return i
}

// numberEnd is the end of the number at i: digits, letters (hex digits,
// suffixes, CSS units), _, . and an exponent's sign.
func numberEnd(src []byte, i int) int {
	hex := i+1 < len(src) && src[i] == '0' && (src[i+1] == 'x' || src[i+1] == 'X')
	j := i
	for j < len(src) {
		b := src[j]
		switch {
		case isDigit(b) || isLetter(b) || b == '_' || b == '.':
		case (b == '+' || b == '-') && !hex && j > i && (src[j-1] == 'e' || src[j-1] == 'E'):
		default:
			return j
		}
		j++
	}
	return j
}

// isNameStart reports whether a name starts at i.
func isNameStart(l *language, src []byte, i int) bool {
	c := src[i]
	if isLetter(c) || c == '_' || c >= 0x80 {
		return true
	}
	if strings.IndexByte(l.identStart, c) < 0 || i+1 >= len(src) {
		return false
	}
	if c == '$' && strings.IndexByte(l.identExtra, '$') >= 0 {
		return true // JavaScript's $ is a name by itself
	}
	d := src[i+1]
	return isLetter(d) || d == '_' || d == '-' && c == '-'
}

// nameEnd is the end of the name whose rest starts at j.
func nameEnd(l *language, src []byte, j int) int {
	for j < len(src) && isNamePart(l, src[j]) {
		j++
	}
	return j
}

func isNamePart(l *language, c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c >= 0x80 || strings.IndexByte(l.identExtra, c) >= 0
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
func isBlank(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
