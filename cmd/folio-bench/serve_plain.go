package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// plainFile is one of the seeded responses the plain reference serves:
// its body is the file of that name in the work folder.
type plainFile struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Headers are the other headers Folio answered with (security
	// headers, Cache-Control, Last-Modified, Accept-Ranges, ...), sent as
	// well, so that the reference writes what Folio writes.
	Headers map[string]string `json:"headers,omitempty"`
}

// plainHeaders are the headers of Folio's answer h that the plain
// reference sends as they are: all but those it makes itself and Date,
// which net/http adds to both.
func plainHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		switch k {
		case "Content-Type", "Content-Length", "Etag", "Date":
			continue
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// plainManifest is the name of the file listing what the plain reference
// serves, in its folder.
const plainManifest = "manifest.json"

// servePlain is the hidden `folio-bench serve-plain -dir D`: the reference
// `folio-bench serve` measures Folio against. It is the least a Go server
// does to send these bytes: a plain net/http handler, each response held
// in memory and written in one Write with its Content-Type, Content-Length
// and ETag, no middleware, no log. It runs as its own process, as Folio
// does, on a free loopback port it prints as its first line of output.
func servePlain(args []string) error {
	fs := flag.NewFlagSet("serve-plain", flag.ExitOnError)
	dir := fs.String("dir", "", "folder holding manifest.json and the files it names")
	fs.Parse(args)
	mux, err := plainMux(*dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, mux)
}

// plainMux is the plain reference's handler for the files of dir.
func plainMux(dir string) (*http.ServeMux, error) {
	m, err := os.ReadFile(filepath.Join(dir, plainManifest))
	if err != nil {
		return nil, err
	}
	var files []plainFile
	if err := json.Unmarshal(m, &files); err != nil {
		return nil, fmt.Errorf("%s: %w", plainManifest, err)
	}
	mux := http.NewServeMux()
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		ctype, etag, length := []string{f.Type}, []string{`"` + hex.EncodeToString(sum[:8]) + `"`}, []string{strconv.Itoa(len(body))}
		type header struct {
			k string
			v []string
		}
		var more []header
		for k, v := range f.Headers {
			more = append(more, header{textproto.CanonicalMIMEHeaderKey(k), []string{v}})
		}
		mux.HandleFunc("GET /"+f.Name, func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h["Content-Type"], h["Etag"], h["Content-Length"] = ctype, etag, length
			for _, kv := range more {
				h[kv.k] = kv.v
			}
			w.Write(body)
		})
	}
	return mux, nil
}

// startPlain writes files into dir and starts this very program as
// `serve-plain` on them.
func startPlain(dir string, files map[string]plainFile, bodies map[string][]byte) (*selfProcess, error) {
	if err := writePlain(dir, files, bodies); err != nil {
		return nil, err
	}
	return startSelf("serve-plain", "-dir", dir)
}

// writePlain writes files and their manifest into dir.
func writePlain(dir string, files map[string]plainFile, bodies map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	var list []plainFile
	for name, f := range files {
		f.Name = name
		list = append(list, f)
		if err := os.WriteFile(filepath.Join(dir, name), bodies[name], 0o640); err != nil {
			return err
		}
	}
	m, _ := json.Marshal(list)
	return os.WriteFile(filepath.Join(dir, plainManifest), m, 0o640)
}
