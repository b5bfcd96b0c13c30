package blog

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The XML side of the WordPress reader: which namespaces are WXR's, the
// fallback reader for the broken CDATA older WordPress wrote, and what a
// file the decoder refuses is told (docs/export-import.md#wordpress-wxr).

// wxrSpace says what an XML namespace is to WXR: WordPress's own fields
// (wp:), the excerpt's, or neither. WordPress wrote
// http://wordpress.org/export/1.0/ to 1.2/, later https://, and the
// excerpt's namespace is that one plus excerpt/. version is "1.2" and so
// on.
func wxrSpace(space string) (version string, excerpt, ok bool) {
	rest, found := strings.CutPrefix(space, "https://")
	if !found {
		if rest, found = strings.CutPrefix(space, "http://"); !found {
			return "", false, false
		}
	}
	rest, found = strings.CutPrefix(rest, "wordpress.org/export/")
	if !found {
		return "", false, false
	}
	version, rest, found = strings.Cut(rest, "/")
	if !found || !wxrVersion(version) {
		return "", false, false
	}
	switch rest {
	case "":
		return version, false, true
	case "excerpt/":
		return version, true, true
	}
	return "", false, false
}

// wxrVersion: "1.0", "1.2", any digits.digits (WordPress's importer reads
// a newer one, with a warning, and so does Folio).
func wxrVersion(v string) bool {
	major, minor, ok := strings.Cut(v, ".")
	return ok && digits(major) && digits(minor)
}

func digits(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// newerWXR reports a version past 1.2, the last WordPress has written.
func newerWXR(version string) bool {
	major, minor, _ := strings.Cut(version, ".")
	ma, _ := strconv.Atoi(major)
	mi, _ := strconv.Atoi(minor)
	return ma > 1 || ma == 1 && mi > 2
}

// isWXR: an element of WordPress's own namespace (wp:).
func isWXR(name xml.Name) bool {
	_, excerpt, ok := wxrSpace(name.Space)
	return ok && !excerpt
}

// isExcerpt: an element of WXR's excerpt namespace.
func isExcerpt(name xml.Name) bool {
	_, excerpt, ok := wxrSpace(name.Space)
	return ok && excerpt
}

func newWXRDecoder(r io.Reader) *xml.Decoder {
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "utf8") || strings.EqualFold(charset, "us-ascii") {
			return input, nil
		}
		return nil, &charsetError{charset}
	}
	return dec
}

// charsetError: the file declares an encoding other than UTF-8, which
// every WordPress since 2.x exports in.
type charsetError struct{ charset string }

func (e *charsetError) Error() string {
	return fmt.Sprintf("encoding %q is not supported (export the site as UTF-8)", e.charset)
}

// xmlFault is where and how a file is not well-formed XML, in words a
// person who has never read the XML specification understands.
type xmlFault struct {
	line int // 0: not known
	what string
}

func (f *xmlFault) Error() string {
	if f.line > 0 {
		return fmt.Sprintf("line %d: %s", f.line, f.what)
	}
	return f.what
}

// faultOf turns an error of the XML decoder into an xmlFault; the
// context's errors, and any error the import itself raised, are returned
// as they are, since they are not the file's.
func faultOf(err error) error {
	if own := ownError(err); own != nil {
		return own
	}
	if f, ok := errors.AsType[*xmlFault](err); ok {
		return f
	}
	if c, ok := errors.AsType[*charsetError](err); ok {
		return &xmlFault{what: c.Error()}
	}
	if se, ok := errors.AsType[*xml.SyntaxError](err); ok {
		return &xmlFault{line: se.Line, what: plainXMLProblem(se.Msg)}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &xmlFault{what: "the file ends before its XML does (it is cut short)"}
	}
	return &xmlFault{what: err.Error()}
}

// plainXMLProblem rewords encoding/xml's messages; those it does not know
// are kept, they name the problem well enough.
func plainXMLProblem(msg string) string {
	switch {
	case msg == "unexpected EOF":
		return "the file ends before its XML does (it is cut short)"
	case msg == "unexpected EOF in CDATA section":
		return "the file ends inside a CDATA section (<![CDATA[ without its ]]>)"
	case msg == "unescaped ]]> not in CDATA section":
		return "]]> outside a CDATA section"
	case msg == "invalid UTF-8":
		return "the text is not valid UTF-8"
	case strings.HasPrefix(msg, "element <") && strings.Contains(msg, "> closed by </"):
		open, closer, _ := strings.Cut(strings.TrimPrefix(msg, "element "), " closed by ")
		return open + " is not closed before " + closer
	case strings.HasPrefix(msg, "unexpected end element </"):
		return strings.TrimPrefix(msg, "unexpected end element ") + " closes an element that is not open"
	case strings.HasPrefix(msg, "invalid character entity "):
		ent := strings.TrimPrefix(msg, "invalid character entity ")
		if e, ok := strings.CutSuffix(ent, " (no semicolon)"); ok {
			return e + " without its ; is not a character reference (a & in text is written &amp;)"
		}
		return ent + " is not a character reference XML knows (a & in text is written &amp;)"
	case strings.HasPrefix(msg, "illegal character code "):
		return "the character " + strings.TrimPrefix(msg, "illegal character code ") + " is not allowed in XML"
	}
	return msg
}

// repairWindow is how far ahead the fallback reader looks: past a "]]>"
// it must see the closing tag of the element, whose name is at most
// maxTagName bytes.
const (
	repairWindow = 64 << 10
	maxTagName   = 1 << 10
)

// cdataRepair reads a WXR file the way WordPress's own importer reads one
// its XML parser refuses, for the one breakage older WordPress versions
// wrote: content holding "]]>" put unescaped inside the CDATA section
// that wraps it (<content:encoded><![CDATA[a ]]> b]]></content:encoded>).
// WordPress wraps every field in exactly one section, so a section ends at
// the "]]>" followed by the closing tag of its element, or by the next
// section's "<![CDATA[". Every other "]]>" in it is text: the reader
// writes it the escaped way (]]]]><![CDATA[>) for the XML decoder, which
// then reads the text back intact. Nothing else is changed, and no newline
// is added or removed, so that the decoder's line numbers are the file's.
// It reads as a stream, holding one window of the file.
type cdataRepair struct {
	src    *bufio.Reader
	state  int
	name   []byte // the element the section is in
	line   int    // line of the next byte read from src
	opened int    // line the open section began on
	out    []byte // what Read has still to give
	buf    []byte
	err    error
	// escaped counts the "]]>" written the escaped way.
	escaped int
}

// States of cdataRepair: in markup or text, in a CDATA section, in a
// comment, in a processing instruction.
const (
	repairOutside = iota
	repairCDATA
	repairComment
	repairPI
)

func newCDATARepair(r io.Reader) *cdataRepair {
	return &cdataRepair{src: bufio.NewReaderSize(r, repairWindow), line: 1}
}

func (c *cdataRepair) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.step()
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// emit passes n bytes of the window through.
func (c *cdataRepair) emit(window []byte, n int) {
	c.line += bytes.Count(window[:n], []byte{'\n'})
	c.buf = append(c.buf[:0], window[:n]...)
	c.out = c.buf
	_, _ = c.src.Discard(n) // n bytes are buffered: Discard cannot fail
}

func (c *cdataRepair) step() {
	w, err := c.src.Peek(repairWindow)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
		return
	}
	end := err != nil // w is all there is left
	if len(w) == 0 {
		c.err = io.EOF
		if c.state == repairCDATA {
			c.err = &xmlFault{line: c.opened, what: "a CDATA section (<![CDATA[) that begins here is never closed"}
		}
		return
	}
	switch c.state {
	case repairOutside:
		c.outside(w)
	case repairComment:
		c.until(w, end, "-->")
	case repairPI:
		c.until(w, end, "?>")
	case repairCDATA:
		c.cdata(w, end)
	}
}

func (c *cdataRepair) outside(w []byte) {
	i := bytes.IndexByte(w, '<')
	switch {
	case i < 0:
		c.emit(w, len(w))
		return
	case i > 0:
		c.emit(w, i)
		return
	}
	switch {
	case bytes.HasPrefix(w, []byte("<!--")):
		c.state = repairComment
		c.emit(w, 4)
	case bytes.HasPrefix(w, []byte("<![CDATA[")):
		c.state = repairCDATA
		c.opened = c.line
		c.emit(w, 9)
	case bytes.HasPrefix(w, []byte("<?")):
		c.state = repairPI
		c.emit(w, 2)
	case bytes.HasPrefix(w, []byte("</")), bytes.HasPrefix(w, []byte("<!")):
		c.emit(w, 2)
	default:
		j := 1
		for j < len(w) && !isTagNameEnd(w[j]) {
			j++
		}
		c.name = append(c.name[:0], w[1:j]...)
		if len(c.name) > maxTagName {
			c.name = c.name[:0] // no closing tag will be recognised: the decoder says what is wrong
		}
		c.emit(w, j)
	}
}

func isTagNameEnd(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '/' || b == '>' || b == '<'
}

// until passes a comment or processing instruction through up to its end.
func (c *cdataRepair) until(w []byte, end bool, closer string) {
	if i := bytes.Index(w, []byte(closer)); i >= 0 {
		c.state = repairOutside
		c.emit(w, i+len(closer))
		return
	}
	keep := len(closer) - 1 // the closer may begin at the window's end
	if end || len(w) <= keep {
		c.emit(w, len(w))
		return
	}
	c.emit(w, len(w)-keep)
}

func (c *cdataRepair) cdata(w []byte, end bool) {
	i := bytes.Index(w, []byte("]]>"))
	switch {
	case i < 0 && (end || len(w) <= 2):
		c.emit(w, len(w))
		return
	case i < 0:
		c.emit(w, len(w)-2) // "]]>" may begin at the window's end
		return
	case i > 0:
		c.emit(w, i)
		return
	}
	rest := w[3:]
	if c.closes(rest) || bytes.HasPrefix(rest, []byte("<![CDATA[")) || len(rest) == 0 {
		c.state = repairOutside
		c.emit(w, 3)
		return
	}
	c.escaped++
	c.buf = append(c.buf[:0], "]]]]><![CDATA[>"...)
	c.out = c.buf
	_, _ = c.src.Discard(3)
}

// closes: rest begins with the closing tag of the section's element.
func (c *cdataRepair) closes(rest []byte) bool {
	if len(c.name) == 0 || !bytes.HasPrefix(rest, []byte("</")) || !bytes.HasPrefix(rest[2:], c.name) {
		return false
	}
	after := rest[2+len(c.name):]
	after = bytes.TrimLeft(after, " \t\r\n")
	return len(after) > 0 && after[0] == '>'
}

// wxrScan reads the whole file once before the import writes anything:
// it checks that the file is a WordPress export, that its XML is well
// formed (through the fallback reader when WordPress's broken CDATA needs
// it), and gathers the attachments the posts' galleries and featured
// images refer to, wherever in the file they are.
func (w *wxrExport) scan() error {
	strict := w.scanWith(false)
	if strict == nil {
		return nil
	}
	first, ok := strict.(*xmlFault)
	if !ok {
		return strict
	}
	w.media = wxrMedia{}
	repaired := w.scanWith(true)
	if repaired == nil {
		w.repair = true
		return nil
	}
	// A fault the repair left, past the first one, is the file's next
	// problem; one before it came of reading a valid section as broken.
	if f, ok := repaired.(*xmlFault); ok && f.line > first.line {
		first = f
	} else if !ok {
		return repaired
	}
	return inputErrorf("not a valid WordPress export: %v", first)
}

// open returns a decoder over the file, through the fallback reader when
// repair is set.
func (w *wxrExport) open(repair bool) (*xml.Decoder, *cdataRepair) {
	var src io.Reader = io.NewSectionReader(w.r, 0, w.size)
	var fix *cdataRepair
	if repair {
		fix = newCDATARepair(src)
		src = fix
	}
	return newWXRDecoder(src), fix
}

// scanWith is one reading of the file; an *xmlFault when its XML is not
// well formed, an *InputError when it is no WordPress export.
func (w *wxrExport) scanWith(repair bool) error {
	dec, fix := w.open(repair)
	if err := w.root(dec); err != nil {
		return err
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return faultOf(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "item" || se.Name.Space != "" {
			continue
		}
		var item xmlNode
		if err := dec.DecodeElement(&item, &se); err != nil {
			return faultOf(err)
		}
		if item.wp("post_type") == "attachment" {
			w.media.add(&item)
		}
	}
	if fix != nil {
		w.escaped = fix.escaped
	}
	w.media.sort()
	return nil
}

// root reads up to the rss element and checks that it declares WXR's
// namespace; the refusals name what the file is instead.
func (w *wxrExport) root(dec *xml.Decoder) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			err = faultOf(err)
			if f, ok := err.(*xmlFault); ok {
				return inputErrorf("not a WordPress export: %v", f)
			}
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local != "rss" {
			return inputErrorf("not a WordPress export: the XML is not an RSS document")
		}
		for _, a := range se.Attr {
			if a.Name.Space != "xmlns" {
				continue
			}
			if version, excerpt, ok := wxrSpace(a.Value); ok && !excerpt {
				w.version = version
				return nil
			}
		}
		return inputErrorf("not a WordPress export: the RSS document has no WordPress (wp:) namespace")
	}
}
