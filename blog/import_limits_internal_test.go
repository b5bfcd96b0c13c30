package blog

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The archive's budget counts the bytes read, across its files, whatever
// their headers say (archive/zip checks those too; this is the bound that
// does not depend on it).
func TestArchiveReaderCountsTheBytesReadAcrossFiles(t *testing.T) {
	budget := &expandBudget{left: 10, limit: 10}
	read := func(s string, limit int64) error {
		_, err := io.ReadAll(&archiveReader{ctx: context.Background(), r: strings.NewReader(s), n: limit, limit: limit, budget: budget, name: "f"})
		return err
	}
	if err := read("123456", 100); err != nil {
		t.Fatal(err)
	}
	if err := read("7890", 100); err != nil {
		t.Fatal(err)
	}
	if _, ok := errors.AsType[*ExpandError](read("x", 100)); !ok {
		t.Fatal("the eleventh byte passed the budget of ten")
	}
	budget = &expandBudget{left: 100, limit: 100}
	if ie, ok := errors.AsType[*InputError](read("12345", 4)); !ok || ie.Msg != "f is too large (at most 0 MiB + 0 KiB when decompressed)" {
		t.Fatalf("a file over its own bound: %v", ie)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := io.ReadAll(&archiveReader{ctx: ctx, r: strings.NewReader("x"), n: 9, limit: 9, budget: budget, name: "f"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after the context ended: %v", err)
	}
}

func TestZipEntriesCountsTheDirectoryNotItsEndRecord(t *testing.T) {
	build := func(n int, front string) []byte {
		var buf bytes.Buffer
		buf.WriteString(front)
		zw := zip.NewWriter(&buf)
		for i := range n {
			zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store})
		}
		zw.Close()
		return buf.Bytes()
	}
	for _, tt := range []struct {
		name  string
		zip   []byte
		limit int
		want  int
	}{
		{"a few", build(3, ""), 10, 3},
		{"stops past the limit", build(50, ""), 10, 11},
		{"zip64 directory", build(70_000, ""), 100_000, 70_000},
		{"data in front, offsets from the zip's start", build(5, "#!/bin/sh\n"), 10, 5},
		{"not a zip", []byte("hello"), 10, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if n := zipEntries(bytes.NewReader(tt.zip), int64(len(tt.zip)), tt.limit); n != tt.want {
				t.Fatalf("%d entries, want %d", n, tt.want)
			}
		})
	}
}
