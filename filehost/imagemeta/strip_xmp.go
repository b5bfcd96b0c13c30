package imagemeta

import (
	"bytes"
	"encoding/xml"
	"maps"
	"slices"
	"strings"
)

// XMP namespaces a gain-map JPEG needs (docs/filehost.md#metadata-stripping):
// the Adobe gain-map parameters and Google's container directory, which
// gives the gain map's length, in the RDF structure that holds them; and
// Apple's gain-map version and auxiliary-image type, which mark an iPhone
// photo's gain map.
const (
	xmpNSMeta      = "adobe:ns:meta/"
	xmpNSRDF       = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	xmpNSGainMap   = "http://ns.adobe.com/hdr-gain-map/1.0/"
	xmpNSContainer = "http://ns.google.com/photos/1.0/container/"
	xmpNSItem      = "http://ns.google.com/photos/1.0/container/item/"
	xmpNSAppleGM   = "http://ns.apple.com/HDRGainMap/1.0/"
	xmpNSAppleAux  = "http://ns.apple.com/pixeldatainfo/1.0/"
)

// xmpPrefix is the prefix the rewritten XMP gives a namespace it keeps.
func xmpPrefix(ns string) string {
	switch ns {
	case xmpNSMeta:
		return "x"
	case xmpNSRDF:
		return "rdf"
	case xmpNSGainMap:
		return "hdrgm"
	case xmpNSContainer:
		return "Container"
	case xmpNSItem:
		return "Item"
	case xmpNSAppleGM:
		return "HDRGainMap"
	case xmpNSAppleAux:
		return "apdi"
	}
	return ""
}

func xmpGainMapNS(ns string) bool {
	switch ns {
	case xmpNSGainMap, xmpNSContainer, xmpNSItem, xmpNSAppleGM, xmpNSAppleAux:
		return true
	}
	return false
}

type xmlNode struct {
	name  xml.Name
	attrs []xml.Attr
	kids  []*xmlNode
	text  string
}

// gainMapXMP is an XMP packet holding only the gain-map parameters and the
// container directory of x (its items other than the primary picture and
// the gain map gone: what follows the pictures is not kept); nil when x
// holds none or does not parse.
func gainMapXMP(x []byte) []byte {
	root := parseXMP(x)
	if root == nil {
		return nil
	}
	root = filterXMP(root, false)
	if root == nil {
		return nil
	}
	// Namespaces are declared where real files declare them: x on
	// x:xmpmeta, rdf on rdf:RDF, the others on the rdf:Description that
	// uses them, where some readers look for them; any other use declares
	// its own.
	var b bytes.Buffer
	var write func(n *xmlNode, declared map[string]bool)
	write = func(n *xmlNode, declared map[string]bool) {
		name := xmpPrefix(n.name.Space) + ":" + n.name.Local
		b.WriteString("<" + name)
		need := map[string]bool{n.name.Space: true}
		for _, a := range n.attrs {
			need[a.Name.Space] = true
		}
		if n.name.Space == xmpNSRDF && n.name.Local == "Description" {
			xmpNamespaces(n, need)
		}
		inner := maps.Clone(declared)
		for _, ns := range []string{xmpNSMeta, xmpNSRDF, xmpNSGainMap, xmpNSContainer, xmpNSItem, xmpNSAppleGM, xmpNSAppleAux} {
			if need[ns] && !declared[ns] {
				b.WriteString(" xmlns:" + xmpPrefix(ns) + `="` + ns + `"`)
				inner[ns] = true
			}
		}
		for _, a := range n.attrs {
			b.WriteString(" " + xmpPrefix(a.Name.Space) + ":" + a.Name.Local + `="`)
			xml.EscapeText(&b, []byte(a.Value))
			b.WriteString(`"`)
		}
		if len(n.kids) == 0 && n.text == "" {
			b.WriteString("/>")
			return
		}
		b.WriteString(">")
		xml.EscapeText(&b, []byte(n.text))
		for _, k := range n.kids {
			write(k, inner)
		}
		b.WriteString("</" + name + ">")
	}
	write(root, map[string]bool{})
	return b.Bytes()
}

// xmpNamespaces adds the namespaces n and everything in it use to used.
func xmpNamespaces(n *xmlNode, used map[string]bool) {
	used[n.name.Space] = true
	for _, a := range n.attrs {
		used[a.Name.Space] = true
	}
	for _, k := range n.kids {
		xmpNamespaces(k, used)
	}
}

// parseXMP reads an XMP packet into a tree of its elements, keeping only
// text that is not blank; nil when it does not parse.
func parseXMP(x []byte) *xmlNode {
	d := xml.NewDecoder(bytes.NewReader(x))
	var root *xmlNode
	var stack []*xmlNode
	for {
		tok, err := d.Token()
		if err != nil {
			if len(stack) > 0 || root == nil {
				return nil
			}
			return root
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= 64 || root != nil && len(stack) == 0 {
				return nil
			}
			n := &xmlNode{name: t.Name, attrs: slices.Clone(t.Attr)}
			if len(stack) == 0 {
				root = n
			} else {
				top := stack[len(stack)-1]
				top.kids = append(top.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && strings.TrimSpace(string(t)) != "" {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
}

// filterXMP keeps of n what a gain-map reader needs: elements and
// attributes in the gain-map and container namespaces, the RDF structure
// inside them (rdf:parseType included), and the x:xmpmeta, rdf:RDF and
// rdf:Description elements around them.
func filterXMP(n *xmlNode, inside bool) *xmlNode {
	ns, local := n.name.Space, n.name.Local
	wrapper := !inside && (ns == xmpNSMeta && local == "xmpmeta" || ns == xmpNSRDF && (local == "RDF" || local == "Description"))
	switch {
	case xmpGainMapNS(ns):
		inside = true
	case inside && ns == xmpNSRDF, wrapper:
	default:
		return nil
	}
	out := &xmlNode{name: n.name}
	if inside {
		out.text = n.text
	}
	for _, a := range n.attrs {
		if xmpGainMapNS(a.Name.Space) || inside && a.Name.Space == xmpNSRDF && a.Name.Local == "parseType" {
			out.attrs = append(out.attrs, a)
		}
	}
	for _, k := range n.kids {
		if ns == xmpNSRDF && local == "li" && otherContainerItem(k) {
			return nil
		}
		if f := filterXMP(k, inside); f != nil {
			out.kids = append(out.kids, f)
		}
	}
	if wrapper && len(out.attrs) == 0 && len(out.kids) == 0 {
		return nil
	}
	return out
}

// otherContainerItem reports whether n is a container directory item for
// something other than the primary picture or the gain map, such as the
// video of a motion photo.
func otherContainerItem(n *xmlNode) bool {
	if n.name.Space != xmpNSContainer || n.name.Local != "Item" {
		return false
	}
	for _, a := range n.attrs {
		if a.Name.Space == xmpNSItem && a.Name.Local == "Semantic" {
			return a.Value != "Primary" && a.Value != "GainMap"
		}
	}
	return false
}
