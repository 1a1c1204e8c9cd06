package migrations

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestFilesAreNumberedAndAnnotated: files are NNNNN_name.sql numbered 1..n
// without gaps (package sqlite relies on it), each with goose Up and Down
// sections, and both dialects have the same files, name for name.
func TestFilesAreNumberedAndAnnotated(t *testing.T) {
	names := map[string][]string{}
	for dialect, fsys := range map[string]fs.FS{"sqlite": SQLite, "postgres": Postgres} {
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			t.Fatalf("%s: no migrations embedded", dialect)
		}
		name := regexp.MustCompile(`^(\d{5})_[a-z0-9_]+\.sql$`)
		for i, e := range entries {
			names[dialect] = append(names[dialect], e.Name())
			m := name.FindStringSubmatch(e.Name())
			if m == nil || m[1] != fmt.Sprintf("%05d", i+1) {
				t.Errorf("%s: migration %d is %q, want %05d_name.sql", dialect, i+1, e.Name(), i+1)
				continue
			}
			data, err := fs.ReadFile(fsys, e.Name())
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			up, down := strings.Index(text, "-- +goose Up"), strings.Index(text, "-- +goose Down")
			if up < 0 || down < up {
				t.Errorf("%s/%s: want a -- +goose Up section followed by a -- +goose Down section", dialect, e.Name())
			}
		}
	}
	if a, b := strings.Join(names["sqlite"], " "), strings.Join(names["postgres"], " "); a != b {
		t.Errorf("the dialects' migrations differ:\n sqlite:   %s\n postgres: %s", a, b)
	}
}
