package activitypub

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestHost(t *testing.T) {
	for iri, want := range map[string]string{
		"https://Remote.Example/users/bob":        "remote.example",
		"http://remote.example:8080/x":            "remote.example:8080",
		"HTTPS://remote.example":                  "remote.example",
		"https://[::1]:8443/inbox":                "[::1]:8443",
		"https://bob@remote.example/":             "remote.example",
		"ftp://remote.example/x":                  "",
		"acct:bob@remote.example":                 "",
		"/users/bob":                              "",
		"remote.example/users/bob":                "",
		"https:///path":                           "",
		"":                                        "",
		"https://remote.example/%zz":              "",
		"javascript://remote.example/%0Aalert(1)": "",
	} {
		if got := Host(iri); got != want {
			t.Errorf("Host(%q) = %q, want %q", iri, got, want)
		}
	}
}

func TestSameHost(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://remote.example/users/bob", "https://remote.example/notes/1", true},
		{"https://remote.example/users/bob", "https://REMOTE.example/notes/1", true},
		{"https://remote.example/users/bob", "https://remote.example:443/notes/1", true},
		{"http://remote.example/users/bob", "http://remote.example:80/notes/1", true},
		{"https://remote.example/users/bob", "http://remote.example/notes/1", false},
		{"https://remote.example/users/bob", "https://remote.example:8443/notes/1", false},
		{"https://remote.example/users/bob", "https://other.example/notes/1", false},
		{"https://remote.example/users/bob", "https://sub.remote.example/notes/1", false},
		{"https://remote.example.evil.test/x", "https://remote.example/x", false},
		{"", "", false},
		{"/a", "/b", false},
	}
	for _, tc := range tests {
		if got := SameHost(tc.a, tc.b); got != tc.want {
			t.Errorf("SameHost(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SameHost(tc.b, tc.a); got != tc.want {
			t.Errorf("SameHost(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestParseAcct(t *testing.T) {
	for in, want := range map[string][2]string{
		"acct:blog@Blog.Example":      {"blog", "blog.example"},
		"ACCT:blog@blog.example":      {"blog", "blog.example"},
		"blog@blog.example":           {"blog", "blog.example"},
		"@blog@blog.example":          {"blog", "blog.example"},
		"acct:Blog@blog.example:8443": {"Blog", "blog.example:8443"},
	} {
		user, host, err := ParseAcct(in)
		if err != nil || [2]string{user, host} != want {
			t.Errorf("ParseAcct(%q) = %q, %q, %v; want %q", in, user, host, err, want)
		}
	}
	for _, in := range []string{"", "acct:", "blog", "acct:blog", "@blog", "blog@", "@blog.example", "a@b@c", "acct:@@", "https://blog.example/ap/actor", "blog@blog.example/x", "bl og@blog.example", "acct:blog@host?x"} {
		if user, host, err := ParseAcct(in); !errors.Is(err, ErrBadAcct) {
			t.Errorf("ParseAcct(%q) = %q, %q, %v; want ErrBadAcct", in, user, host, err)
		}
	}
}

func TestNodeInfoWritesEmptyListsAsTheSchemaWants(t *testing.T) {
	n := NewNodeInfo("folio", "1.2.3")
	n.Usage.Users.Total = 1
	n.Usage.LocalPosts = 12
	data, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":"2.1","software":{"name":"folio","version":"1.2.3"},"protocols":["activitypub"],"services":{"inbound":[],"outbound":[]},"openRegistrations":false,"usage":{"users":{"total":1,"activeMonth":0,"activeHalfyear":0},"localPosts":12},"metadata":{}}`
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	if data, _ := json.Marshal(NodeInfo{}); string(data) != `{"version":"2.1","software":{"name":"","version":""},"protocols":[],"services":{"inbound":[],"outbound":[]},"openRegistrations":false,"usage":{"users":{"total":0,"activeMonth":0,"activeHalfyear":0},"localPosts":0},"metadata":{}}` {
		t.Errorf("zero NodeInfo: %s", data)
	}
	links, _ := json.Marshal(NodeInfoLinks{Links: []Link{{Rel: NodeInfoSchema21, Href: "https://blog.example/nodeinfo/2.1"}}})
	if string(links) != `{"links":[{"rel":"http://nodeinfo.diaspora.software/ns/schema/2.1","href":"https://blog.example/nodeinfo/2.1"}]}` {
		t.Errorf("links: %s", links)
	}
	jrd, _ := json.Marshal(JRD{Subject: "acct:blog@blog.example", Links: []Link{{Rel: "self", Type: ContentType, Href: "https://blog.example/ap/actor"}}})
	if string(jrd) != `{"subject":"acct:blog@blog.example","links":[{"rel":"self","type":"application/activity+json","href":"https://blog.example/ap/actor"}]}` {
		t.Errorf("JRD: %s", jrd)
	}
}
