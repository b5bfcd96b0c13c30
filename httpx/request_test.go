package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	type body struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	tests := []struct {
		name   string
		in     string
		status int // 0: success
	}{
		{"valid", `{"name":"a","count":2}`, 0},
		{"unknown fields ignored", `{"name":"a","extra":[1,2]}`, 0},
		{"trailing whitespace", "{\"name\":\"a\"}\n\t ", 0},
		{"empty body", ``, 400},
		{"malformed", `{"name":`, 400},
		{"not JSON", `name=a`, 400},
		{"wrong type", `{"count":"two"}`, 400},
		{"wrong top-level type", `["a"]`, 400},
		{"trailing object", `{"name":"a"}{"name":"b"}`, 400},
		{"trailing garbage", `{"name":"a"} x`, 400},
		{"too large", `{"name":"` + strings.Repeat("a", MaxJSONBody) + `"}`, 413},
		{"NUL in a string", `{"name":"a\u0000"}`, 400},
		{"NUL escape in upper case", `{"name":"\U0000"}`, 400},
		{"escaped backslash then u0000 is text", `{"name":"\\u0000"}`, 0},
		{"other escapes", `{"name":"\u0001\n\"\\"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := FileAPI.Handle(func(w http.ResponseWriter, r *http.Request) error {
				var b body
				if err := DecodeJSON(w, r, &b); err != nil {
					return err
				}
				FileAPI.OK(w, 200, b)
				return nil
			})
			w := serve(h, httptest.NewRequest("POST", "/", strings.NewReader(tt.in)))
			want := tt.status
			if want == 0 {
				want = 200
			}
			if w.Code != want {
				t.Fatalf("status %d, want %d: %s", w.Code, want, w.Body)
			}
			wantMsg := map[int]string{400: `"message":"invalid request payload"`, 413: `"message":"request body too large (at most 1 MiB)"`, 200: `"code":0`}[want]
			if !strings.Contains(w.Body.String(), wantMsg) {
				t.Fatalf("body %s lacks %s", w.Body, wantMsg)
			}
		})
	}
}

func TestParsePaging(t *testing.T) {
	tests := []struct {
		name, query string
		want        Paging
		bad         bool
	}{
		{"defaults", "", Paging{1, 20}, false},
		{"explicit", "page=3&size=50", Paging{3, 50}, false},
		{"size capped", "size=1000", Paging{1, 100}, false},
		{"size zero takes default", "size=0", Paging{1, 20}, false},
		{"negative size takes default", "size=-5", Paging{1, 20}, false},
		{"page zero becomes one", "page=0", Paging{1, 20}, false},
		{"negative page becomes one", "page=-3", Paging{1, 20}, false},
		{"huge page capped", "page=2000000000", Paging{1_000_000, 20}, false},
		{"other size param ignored", "page_size=5", Paging{1, 20}, false},
		{"page not a number", "page=two", Paging{}, true},
		{"size not a number", "size=1.5", Paging{}, true},
		{"overflow", "page=99999999999999999999", Paging{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePaging(httptest.NewRequest("GET", "/?"+tt.query, nil), "size", 20, 100)
			if tt.bad {
				if he := AsError(err); err == nil || he.Status != 400 {
					t.Fatalf("ParsePaging(%s) = %v, %v; want 400", tt.query, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParsePaging(%s) = %v, %v; want %v", tt.query, got, err, tt.want)
			}
		})
	}
	got, err := ParsePaging(httptest.NewRequest("GET", "/?page_size=7", nil), "page_size", 10, 100)
	if err != nil || got != (Paging{1, 7}) {
		t.Fatalf("page_size param: %v, %v", got, err)
	}
}

func TestPathID(t *testing.T) {
	tests := []struct {
		name, path, want string
		status           int
	}{
		{"valid", "/x/0190b9d2-3f4c-7a1b-8c2d-0123456789ab", "0190b9d2-3f4c-7a1b-8c2d-0123456789ab", 200},
		{"upper case is lowered", "/x/0190B9D2-3F4C-7A1B-8C2D-0123456789AB", "0190b9d2-3f4c-7a1b-8c2d-0123456789ab", 200},
		{"malformed", "/x/12", "", 404},
		{"injection", "/x/'%20OR%201=1", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			var got string
			mux.Handle("GET /x/{id}", FileAPI.Handle(func(w http.ResponseWriter, r *http.Request) error {
				id, err := PathID(r, "id")
				if err != nil {
					return err
				}
				got = id
				FileAPI.OK(w, 200, nil)
				return nil
			}))
			w := serve(mux, httptest.NewRequest("GET", tt.path, nil))
			if w.Code != tt.status || got != tt.want {
				t.Fatalf("status %d id %q, want %d %q", w.Code, got, tt.status, tt.want)
			}
		})
	}
}

func TestQueryBoolAndID(t *testing.T) {
	tests := []struct {
		query string
		want  *bool
		bad   bool
	}{
		{"", nil, false},
		{"f=true", ptr(true), false},
		{"f=1", ptr(true), false},
		{"f=off", ptr(false), false},
		{"f=FALSE", ptr(false), false},
		{"f=maybe", nil, true},
	}
	for _, tt := range tests {
		got, err := QueryBool(httptest.NewRequest("GET", "/?"+tt.query, nil), "f")
		if tt.bad != (err != nil) || (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("QueryBool(%q) = %v, %v", tt.query, got, err)
		}
		if err != nil && AsError(err).Status != 400 {
			t.Errorf("QueryBool(%q) error status %d, want 400", tt.query, AsError(err).Status)
		}
	}
	if id, err := QueryID(httptest.NewRequest("GET", "/?a=0190B9D2-3F4C-7A1B-8C2D-0123456789AB", nil), "a"); err != nil || id != "0190b9d2-3f4c-7a1b-8c2d-0123456789ab" {
		t.Errorf("QueryID valid = %q, %v", id, err)
	}
	if id, err := QueryID(httptest.NewRequest("GET", "/", nil), "a"); err != nil || id != "" {
		t.Errorf("QueryID absent = %q, %v", id, err)
	}
	if _, err := QueryID(httptest.NewRequest("GET", "/?a=nope", nil), "a"); err == nil || AsError(err).Status != 400 {
		t.Errorf("QueryID malformed = %v, want 400", err)
	}
}

func ptr[T any](v T) *T { return &v }
