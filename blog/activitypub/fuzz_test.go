package activitypub

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeActivity: any bytes. Decode never panics and gives an object
// with a type or an error, never both; the object encoded and decoded
// again is the same object.
func FuzzDecodeActivity(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Decode(data)
		if (o == nil) == (err == nil) {
			t.Fatalf("Decode gave %+v and %v", o, err)
		}
		if err != nil {
			return
		}
		if o.Type == "" {
			t.Fatal("an object without type")
		}
		out, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("encoding %+v: %v", o, err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("%s does not decode again: %v", out, err)
		}
		if !reflect.DeepEqual(again, o) {
			t.Fatalf("decoded again differs:\n%+v\n%+v", again, o)
		}
	})
}
