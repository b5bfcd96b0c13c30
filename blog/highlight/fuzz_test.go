package highlight

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"
)

// FuzzHighlight highlights any code in every language (docs/testing.md#fuzzing):
// never a panic; the HTML holds only <span class="hl-…"> and </span> tags,
// never nested, every one closed, no span empty; and its text, tags
// removed and references resolved, is the code byte for byte.
func FuzzHighlight(f *testing.F) {
	for _, s := range []string{
		"", "func main() { fmt.Println(\"hi\") } // c", "<a href=\"x\">t</a><!-- c", "/* open", "'''doc",
		"echo ${HOME} $1 a#b # c", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y", "@media { a { color: #fff } }",
		"SELECT 'a''b' -- c", "key: 'v' # c", "fn f<'a>(x: &'a str) { 'c' }", "#include <x.h>", "\"\\", "\xff\xfe<",
	} {
		f.Add(uint8(0), s)
	}
	names := Languages()
	f.Fuzz(func(t *testing.T, pick uint8, code string) {
		lang := "unknown"
		if int(pick) < len(names) {
			lang = names[pick]
		}
		if err := check(code, HTML(lang, code)); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
	})
}

// check holds the HTML made of code to FuzzHighlight's rules.
func check(code, out string) error {
	var text strings.Builder
	open := false
	for i := 0; i < len(out); {
		j := strings.IndexByte(out[i:], '<')
		if j < 0 {
			j = len(out) - i
		}
		seg := out[i : i+j]
		if strings.ContainsAny(seg, ">\"") {
			return fmt.Errorf("unescaped > or \" in the text %q of %q", seg, out)
		}
		text.WriteString(html.UnescapeString(seg))
		i += j
		if i == len(out) {
			break
		}
		end := strings.IndexByte(out[i:], '>')
		if end < 0 {
			return fmt.Errorf("a tag not closed at %d of %q", i, out)
		}
		tag := out[i : i+end+1]
		i += end + 1
		switch {
		case tag == "</span>":
			if !open {
				return fmt.Errorf("</span> without <span> at %d of %q", i, out)
			}
			if strings.HasSuffix(out[:i-len(tag)], `">`) {
				return fmt.Errorf("an empty span at %d of %q", i, out)
			}
			open = false
		case strings.HasPrefix(tag, `<span class="`) && strings.HasSuffix(tag, `">`):
			if open {
				return fmt.Errorf("nested span at %d of %q", i, out)
			}
			if class := tag[len(`<span class="`) : len(tag)-2]; !slices.Contains(Classes(), class) {
				return fmt.Errorf("class %q in %q", class, out)
			}
			open = true
		default:
			return fmt.Errorf("tag %q in %q", tag, out)
		}
	}
	if open {
		return fmt.Errorf("a span left open in %q", out)
	}
	if text.String() != code {
		return fmt.Errorf("the text of the HTML is %q, not the code %q", text.String(), code)
	}
	return nil
}
