package migrations

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestFilesAreNumberedAndAnnotated: files are NNNNN_name.sql numbered 1..n
// without gaps (package db relies on it), each with goose Up and Down
// sections.
func TestFilesAreNumberedAndAnnotated(t *testing.T) {
	entries, err := FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no migrations embedded")
	}
	name := regexp.MustCompile(`^(\d{5})_[a-z0-9_]+\.sql$`)
	for i, e := range entries {
		m := name.FindStringSubmatch(e.Name())
		if m == nil || m[1] != fmt.Sprintf("%05d", i+1) {
			t.Errorf("migration %d is %q, want %05d_name.sql", i+1, e.Name(), i+1)
			continue
		}
		data, err := FS.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		up, down := strings.Index(text, "-- +goose Up"), strings.Index(text, "-- +goose Down")
		if up < 0 || down < up {
			t.Errorf("%s: want a -- +goose Up section followed by a -- +goose Down section", e.Name())
		}
	}
}
