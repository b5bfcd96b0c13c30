package main

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzLoadConfig feeds any file text, and one environment variable of a
// key the key byte picks, to LoadConfig. Besides never panicking, it
// checks what docs/testing.md#fuzzing lists: a load gives a Config or an
// error, never both or neither, and the same again when repeated; CRLF
// line endings and a leading comment change nothing; the same file with
// every line commented out gives the defaults; and an environment
// variable acts as one more line at the end of the file.
func FuzzLoadConfig(f *testing.F) {
	defaults, err := LoadConfig("", nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	keys := allKeys()
	for i, seed := range []struct{ file, value string }{
		{"", ""},
		{"# only a comment\n\n   \n\t# another\n", ":9000"},
		{"server.addr = :9000\nsite.site_name = \"  My Site  \"\nupload.max_file_size = 5MiB\n", "x"},
		{"upload.forbidden_exts = exe, .PHP\nrender.render_mode = headless\n", "classic"},
		{"database.driver = postgres\n", "postgres://folio@127.0.0.1/folio"},
		{"database.driver = postgres\ndatabase.dsn = 'postgres://x'\n", ""},
		{"server.trusted_proxies = 10.0.0.0/8, ::1/128\r\nlog.level = debug\r\n", "warn"},
		{"admin.session_ttl_hours = 0\n= x\nserver.adr = :1\n", "8784"},
		{"upload.path_pattern = {year}/{md5}.{ext}\n", "../{uuid}"},
		{"site.site_name = \"\n", "'"},
		{"post.posts_per_page=100\npost.summary_length = 0\n", "1000"},
		{"upload.allowed_types = image/*, png\nupload.strip_metadata = off\n", "yes"},
	} {
		f.Add(seed.file, uint8(i*7%len(keys)), seed.value)
	}
	f.Fuzz(func(t *testing.T, file string, keyByte uint8, value string) {
		c, err := LoadConfig("fuzz.conf", strings.NewReader(file), nil)
		if (c == nil) == (err == nil) {
			t.Fatalf("LoadConfig gave config %v and error %v", c, err)
		}
		if len(file) > 256<<10 || len(value) > 64<<10 {
			return // the scanner's line limit would tell the variants apart
		}
		same := func(what, variant string, env []string, wantC *Config, wantErr error) {
			t.Helper()
			got, gotErr := LoadConfig("fuzz.conf", strings.NewReader(variant), env)
			if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, wantC) {
				t.Fatalf("%s: got %+v, %v; want %+v, %v", what, got, gotErr, wantC, wantErr)
			}
		}

		again, againErr := LoadConfig("fuzz.conf", strings.NewReader(file), nil)
		if !reflect.DeepEqual(again, c) || againErr != nil && againErr.Error() != err.Error() {
			t.Fatalf("a second load differs: %+v, %v; first %+v, %v", again, againErr, c, err)
		}
		same("CRLF and a leading comment", "# fuzz\n\n"+strings.ReplaceAll(file, "\n", "\r\n"), nil, c, err)

		lines := strings.Split(file, "\n")
		for i := range lines {
			lines[i] = "#" + lines[i]
		}
		same("every line commented out", strings.Join(lines, "\n"), nil, defaults, nil)

		// The environment: one more line after the file, with the value
		// quoted so that its spaces stay as the environment keeps them.
		if strings.Contains(value, "\n") {
			return
		}
		key := keys[int(keyByte)%len(keys)]
		want, wantErr := LoadConfig("fuzz.conf", strings.NewReader(file+"\n"+key+` = "`+value+`"`), nil)
		same("environment "+EnvName(key), file, []string{EnvName(key) + "=" + value}, want, wantErr)
	})
}
