package activitypub

import "testing"

func TestWantsActivityJSONOnlyWhenPreferredToHTML(t *testing.T) {
	tests := []struct {
		name   string
		accept string
		want   bool
	}{
		{"Chromium", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7", false},
		{"Firefox", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false},
		{"Safari", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false},
		{"curl", "*/*", false},
		{"no header", "", false},
		{"a feed reader", "application/rss+xml, application/atom+xml;q=0.9, */*;q=0.1", false},
		{"Mastodon", "application/activity+json, application/ld+json", true},
		{"Mastodon, older, with HTML last", `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams", text/html;q=0.1`, true},
		{"GoToSocial", `application/activity+json, application/ld+json;profile="https://www.w3.org/ns/activitystreams"`, true},
		{"Misskey", `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		{"Pleroma", "application/activity+json", true},
		{"ld+json with the profile alone", `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, true},
		{"ld+json without profile", "application/ld+json", true},
		{"ld+json with a profile list", `application/ld+json; profile="https://example.org/p https://www.w3.org/ns/activitystreams"`, true},
		{"ld+json with another profile", `application/ld+json; profile="https://example.org/profile"`, false},
		{"upper case", "APPLICATION/ACTIVITY+JSON", true},
		{"activity JSON refused with q=0", "application/activity+json;q=0, text/html;q=0.1", false},
		{"activity JSON refused, nothing else", "application/activity+json; q=0", false},
		{"HTML preferred by q", "application/activity+json;q=0.5, text/html", false},
		{"activity JSON preferred by q", "text/html;q=0.5, application/activity+json", true},
		{"a tie, activity JSON first", "application/activity+json, text/html", true},
		{"a tie, HTML first", "text/html, application/activity+json", false},
		{"a tie with */*, activity JSON first", "application/activity+json, */*", true},
		{"a tie with */*, */* first", "*/*, application/activity+json", false},
		{"*/* preferred", "application/activity+json;q=0.5, */*", false},
		{"text/* preferred", "application/activity+json;q=0.5, text/*", false},
		{"beats */* with a lower q", "application/activity+json, */*;q=0.8", true},
		{"a q that is no number is skipped", "application/activity+json;q=high, text/html;q=0.1", false},
		{"a q above 1 is skipped", "application/activity+json;q=2", false},
		{"spaces and q in capitals", "text/html ; Q=0.2 , application/activity+json ; Q=0.3", true},
		{"plain JSON is not ActivityStreams", "application/json", false},
		{"a quoted comma in a parameter", `application/ld+json; profile="https://www.w3.org/ns/activitystreams,x", text/html;q=0.1`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Wants(tc.accept); got != tc.want {
				t.Errorf("Wants(%q) = %v, want %v", tc.accept, got, tc.want)
			}
		})
	}
}

func TestIsActivityContentType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/activity+json":                true,
		"application/activity+json; charset=utf-8": true,
		LDContentType:                     true,
		"Application/LD+JSON":             true,
		" application/ld+json ;profile=x": true,
		"application/json":                false,
		"text/html":                       false,
		"":                                false,
		"application/activity+jsonx":      false,
		"multipart/form-data; boundary=application/ld+json": false,
	} {
		if got := IsActivityContentType(ct); got != want {
			t.Errorf("IsActivityContentType(%q) = %v, want %v", ct, got, want)
		}
	}
}
