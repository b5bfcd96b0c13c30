package imagemetatest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exiftool (Debian package libimage-exiftool-perl) is the outside parser
// the metadata-stripping tests read their output back with: it knows the
// structures of JPEG, HEIF and QuickTime independently of Folio
// (docs/filehost.md#metadata-stripping).

// ExiftoolPath returns exiftool (Debian package libimage-exiftool-perl).
// Under CI=true its absence fails the test: only a parser that is not
// Folio's own shows that nothing it knows is left.
func ExiftoolPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("exiftool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("exiftool is not installed (apt-get install libimage-exiftool-perl); CI needs it")
		}
		t.Skip("exiftool is not installed (apt-get install libimage-exiftool-perl): skipping the outside check")
	}
	return p
}

// ExiftoolRun runs exiftool with args on b written to a file called name.
func ExiftoolRun(t *testing.T, name string, b []byte, args ...string) []byte {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ExiftoolPath(t), append(args, f)...).Output()
	if err != nil {
		t.Fatalf("exiftool %v: %v", args, err)
	}
	return out
}

// ExiftoolTags is every tag exiftool finds in b written to a file called
// name, as group:name → value, unknown tags and duplicates included; extra
// arguments (-ee: embedded documents and timed metadata) come first.
func ExiftoolTags(t *testing.T, name string, b []byte, extra ...string) map[string]any {
	t.Helper()
	var got []map[string]any
	if err := json.Unmarshal(ExiftoolRun(t, name, b, append(extra, "-j", "-a", "-G1", "-u", "-n")...), &got); err != nil || len(got) != 1 {
		t.Fatalf("exiftool's answer: %v", err)
	}
	return got[0]
}
