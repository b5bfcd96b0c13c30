package imagemeta

import "testing"

func TestGainMapXMPKeepsOnlyTheGainMapProperties(t *testing.T) {
	const rdf = `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"`
	for _, tt := range []struct{ name, in, want string }{
		{"attributes, among others", `<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 6.0"><rdf:RDF ` + rdf + `><rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" hdrgm:Version="1.0" exif:GPSLatitude="48,51.496N"/></rdf:RDF></x:xmpmeta>`,
			`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` + rdf + `><rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"/></rdf:RDF></x:xmpmeta>`},
		{"elements with per-channel sequences, other prefixes", `<rdf:RDF ` + rdf + `><rdf:Description xmlns:g="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><g:GainMapMax><rdf:Seq><rdf:li>2.1</rdf:li><rdf:li>2.2</rdf:li><rdf:li>2.3</rdf:li></rdf:Seq></g:GainMapMax><dc:creator><rdf:Seq><rdf:li>Someone</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF>`,
			`<rdf:RDF ` + rdf + `><rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"><hdrgm:GainMapMax><rdf:Seq><rdf:li>2.1</rdf:li><rdf:li>2.2</rdf:li><rdf:li>2.3</rdf:li></rdf:Seq></hdrgm:GainMapMax></rdf:Description></rdf:RDF>`},
		{"an iPhone's gain map", `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` + rdf + `><rdf:Description xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2026-05-01"><HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion><apdi:AuxiliaryImageType>urn:com:apple:photo:2020:aux:hdrgainmap</apdi:AuxiliaryImageType></rdf:Description></rdf:RDF></x:xmpmeta>`,
			`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` + rdf + `><rdf:Description xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/"><HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion><apdi:AuxiliaryImageType>urn:com:apple:photo:2020:aux:hdrgainmap</apdi:AuxiliaryImageType></rdf:Description></rdf:RDF></x:xmpmeta>`},
		{"escaped text stays escaped", `<rdf:RDF ` + rdf + `><rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1&amp;&lt;&quot;"/></rdf:RDF>`,
			`<rdf:RDF ` + rdf + `><rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1&amp;&lt;&#34;"/></rdf:RDF>`},
		{"no gain-map property", `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` + rdf + `><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"/></rdf:RDF></x:xmpmeta>`, ""},
		{"not XML", `<x:xmpmeta hdrgm:Version="1.0"`, ""},
		{"two roots", `<rdf:RDF ` + rdf + `/><rdf:RDF ` + rdf + `/>`, ""},
		{"empty", ``, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := gainMapXMP([]byte(tt.in))
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if got != nil && string(gainMapXMP(got)) != string(got) {
				t.Errorf("rewriting the rewrite changed it: %s", gainMapXMP(got))
			}
		})
	}
}
