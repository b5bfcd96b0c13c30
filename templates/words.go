package templates

import (
	"fmt"
	"strconv"
)

// Plural writes a count with its noun: "1 file", "0 files", "2 files". The
// plural is the singular plus "s" unless given ("1 reply", "3 replies").
// Every count the console and the public pages show goes through it, so
// that none reads "1 files" (docs/console.md#small-behaviours).
func Plural(n int64, singular string, plural ...string) string {
	noun := singular
	if n != 1 && n != -1 {
		noun = singular + "s"
		if len(plural) > 0 && plural[0] != "" {
			noun = plural[0]
		}
	}
	return strconv.FormatInt(n, 10) + " " + noun
}

// pluralFunc is Plural for templates, whose numbers come as any integer
// type.
func pluralFunc(n any, singular string, plural ...string) (string, error) {
	var v int64
	switch x := n.(type) {
	case int:
		v = int64(x)
	case int64:
		v = x
	case int32:
		v = int64(x)
	case uint:
		v = int64(x)
	case uint32:
		v = int64(x)
	case uint64:
		v = int64(x)
	default:
		return "", fmt.Errorf("plural wants a whole number, not %T", n)
	}
	if len(plural) > 1 {
		return "", fmt.Errorf("plural takes one plural form, not %d", len(plural))
	}
	return Plural(v, singular, plural...), nil
}
