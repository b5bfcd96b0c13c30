package htmltomd

import (
	"strconv"
	"strings"
)

// Tables become GitHub-flavoured Markdown tables: the first row (the
// head's, if the table has one) is the header, a column's alignment is the
// first one its cells give, and each cell is one line of inline Markdown.

// maxTableColumns bounds a table's width: cells beyond it are joined into
// the last column, so that the header and delimiter rows, which name
// every column, stay small.
const maxTableColumns = 64

// maxRowSpan bounds how many rows a cell may span: each row it spans gets
// an empty cell, so an unbounded span would let a few bytes of HTML write
// many.
const maxRowSpan = 32

// tableParts are a table's rows by section, its caption and what it holds
// outside any cell (which browsers show before the table).
type tableParts struct {
	head, body, foot []*htmlNode
	caption          *htmlNode
	loose            []*htmlNode
}

// add sorts m's children into the parts: rows into where; cells outside a
// row make a row of their own.
func (t *tableParts) add(m *htmlNode, where *[]*htmlNode) {
	var cells []*htmlNode
	flush := func() {
		if len(cells) > 0 {
			*where = append(*where, &htmlNode{name: "tr", kids: cells})
			cells = nil
		}
	}
	for _, k := range m.kids {
		switch k.name {
		case "tr":
			flush()
			*where = append(*where, k)
		case "td", "th":
			cells = append(cells, k)
		case "thead":
			flush()
			t.add(k, &t.head)
		case "tbody":
			flush()
			t.add(k, &t.body)
		case "tfoot":
			flush()
			t.add(k, &t.foot)
		case "caption":
			if t.caption == nil {
				t.caption = k
			} else {
				t.loose = append(t.loose, k.kids...)
			}
		case "colgroup", "col":
		default:
			if !isBlankText(k) {
				t.loose = append(t.loose, k)
			}
		}
	}
	flush()
}

// table converts a table: what it holds outside its cells, the table, and
// its caption in italics. A table without cells is no table.
func (c *mdConverter) table(n *htmlNode) []string {
	var t tableParts
	t.add(n, &t.body)
	rows := append(append(t.head, t.body...), t.foot...)

	var grid [][]string
	var aligns []string
	// covered[col] is the last row that a cell spanning rows from above
	// covers in that column.
	var covered []int
	wide := false
	for r, tr := range rows {
		var cells []string
		col := 0
		skipCovered := func() {
			for col < len(covered) && covered[col] >= r {
				cells = append(cells, "")
				col++
			}
		}
		for _, td := range tr.kids {
			if td.name != "td" && td.name != "th" {
				if !isBlankText(td) {
					t.loose = append(t.loose, td)
				}
				continue
			}
			skipCovered()
			text := c.cell(td)
			if col >= maxTableColumns {
				wide = true
				if last := len(cells) - 1; text != "" {
					cells[last] = strings.TrimSpace(cells[last] + " " + text)
				}
				continue
			}
			colspan := span(td.attr("colspan"), maxTableColumns-col)
			rowspan := span(td.attr("rowspan"), maxRowSpan)
			if colspan > 1 || rowspan > 1 {
				c.note(lossMergedCells)
			}
			for len(aligns) <= col {
				aligns = append(aligns, "")
			}
			if aligns[col] == "" {
				aligns[col] = cellAlign(td)
			}
			cells = append(cells, text)
			for i := range colspan {
				if i > 0 {
					cells = append(cells, "")
				}
				for len(covered) <= col {
					covered = append(covered, -1)
				}
				covered[col] = r + rowspan - 1
				col++
			}
		}
		if len(cells) > 0 {
			grid = append(grid, cells)
		}
	}
	if wide {
		c.note(lossWideTable)
	}

	out := c.blocks(t.loose)
	if len(grid) > 0 {
		out = append(out, tableMarkdown(grid, aligns))
	}
	if t.caption != nil {
		out = append(out, nonEmpty(c.captionLine(t.caption.kids))...)
	}
	return out
}

// tableMarkdown writes the rows, the first as the header. Only the header
// and delimiter rows name every column: Markdown gives shorter rows empty
// cells, so the others end at their last cell with text.
func tableMarkdown(grid [][]string, aligns []string) string {
	cols := 0
	for _, r := range grid {
		cols = max(cols, len(r))
	}
	row := func(cells []string, n int) string {
		var b strings.Builder
		b.WriteByte('|')
		for i := range n {
			if i < len(cells) && cells[i] != "" {
				b.WriteString(" " + cells[i] + " |")
			} else {
				b.WriteString(" |")
			}
		}
		return b.String()
	}
	delim := "|"
	for i := range cols {
		a := ""
		if i < len(aligns) {
			a = aligns[i]
		}
		delim += map[string]string{"left": " :-- |", "center": " :-: |", "right": " --: |"}[a]
		if a == "" {
			delim += " --- |"
		}
	}
	lines := []string{row(grid[0], cols), delim}
	for _, r := range grid[1:] {
		n := len(r)
		for n > 0 && r[n-1] == "" {
			n--
		}
		if n > 0 { // a row of empty cells says nothing
			lines = append(lines, row(r, n))
		}
	}
	return strings.Join(lines, "\n")
}

// span reads a colspan or rowspan: 1 unless a number from 2 to limit.
func span(v string, limit int) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 1
	}
	return max(min(n, limit), 1)
}

// cellAlign is a cell's alignment ("left", "center", "right" or ""), from
// its align attribute, its style's text-align, WordPress's
// has-text-align-… class or Folio's own align-… class.
func cellAlign(td *htmlNode) string {
	valid := func(a string) string {
		switch a = strings.ToLower(strings.TrimSpace(a)); a {
		case "left", "center", "right":
			return a
		}
		return ""
	}
	if a := valid(td.attr("align")); a != "" {
		return a
	}
	for _, decl := range strings.Split(td.attr("style"), ";") {
		if prop, val, ok := strings.Cut(decl, ":"); ok && strings.EqualFold(strings.TrimSpace(prop), "text-align") {
			if a := valid(val); a != "" {
				return a
			}
		}
	}
	for _, class := range strings.Fields(td.attr("class")) {
		if a, ok := strings.CutPrefix(class, "has-text-align-"); ok && valid(a) != "" {
			return a
		}
		if a, ok := strings.CutPrefix(class, "align-"); ok && valid(a) != "" {
			return a
		}
	}
	return valid(td.attr("data-align"))
}

// cell converts a cell's content into one line of inline Markdown: line
// breaks become spaces, blocks (counted) their text, and every '|' that
// would end the cell is escaped (which Markdown's tables allow even in
// code).
func (c *mdConverter) cell(td *htmlNode) string {
	if holdsBlocks(td) {
		c.note(lossCellFlattened)
	}
	c.inCell++
	var b strings.Builder
	for _, k := range td.kids {
		c.inline(&b, k)
	}
	c.inCell--
	s := strings.ReplaceAll(b.String(), "\\\n", " ")
	s = strings.TrimSpace(collapseSpaces(strings.ReplaceAll(s, "\n", " ")))
	if trailingBackslashes(s)%2 == 1 {
		s += " " // a lone backslash would escape the cell's end
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			out.WriteByte('\\')
		}
		out.WriteByte(s[i])
	}
	return strings.TrimSpace(out.String())
}

// paragraphElements are the blocks that a cell may hold one of without
// losing anything when it becomes a line.
var paragraphElements = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true,
	"aside": true, "nav": true, "address": true, "center": true, "hgroup": true,
}

// holdsBlocks reports whether a cell holds more than one paragraph, or a
// block that Markdown writes with syntax of its own (list, heading, quote,
// code, rule, table, …), which a table cell cannot hold.
func holdsBlocks(td *htmlNode) bool {
	paragraphs := 0
	// walk looks for blocks under m; counted says whether m's own text is a
	// paragraph (not when m is an inline element inside one).
	var walk func(m *htmlNode, counted bool) bool
	walk = func(m *htmlNode, counted bool) bool {
		text := false
		for _, k := range m.kids {
			switch {
			case k.name == "":
				text = text || !isBlankText(k)
			case k.name == "br":
			case paragraphElements[k.name]:
				if walk(k, counted) {
					return true
				}
			case blockElements[k.name]:
				return true
			default:
				text = true
				if walk(k, false) {
					return true
				}
			}
		}
		if text && counted {
			paragraphs++
		}
		return paragraphs > 1
	}
	return walk(td, true)
}

// inlineTable writes a table found inside a line of text (a heading, a
// link, a cell) as the text of its cells, one after another.
func (c *mdConverter) inlineTable(b *strings.Builder, n *htmlNode) {
	if c.inCell == 0 {
		c.note(lossInlineTable)
	}
	c.inCell++
	defer func() { c.inCell-- }()
	var walk func(m *htmlNode)
	walk = func(m *htmlNode) {
		for _, k := range m.kids {
			switch k.name {
			case "tr", "thead", "tbody", "tfoot":
				walk(k)
			case "td", "th", "caption":
				b.WriteByte(' ')
				for _, kk := range k.kids {
					c.inline(b, kk)
				}
				b.WriteByte(' ')
			case "colgroup", "col":
			default:
				c.inline(b, k)
			}
		}
	}
	walk(n)
}
