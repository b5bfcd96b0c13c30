package activitypub

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// decodeFile decodes a fixture of testdata/, failing the test on an
// error.
func decodeFile(t testing.TB, name string) *Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	o, err := Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return o
}

// eq reports a value that differs from the one wanted.
func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}
