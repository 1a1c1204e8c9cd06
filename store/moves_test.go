package store

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
)

// fakeRows is a result of (seq, dir) rows, as a database hands them.
type fakeRows struct {
	rows [][2]int64
	err  error
	next int
}

func (r *fakeRows) Next() bool { r.next++; return r.next <= len(r.rows) }

func (r *fakeRows) Scan(dest ...any) error {
	row := r.rows[r.next-1]
	*dest[0].(*int64), *dest[1].(*int64) = row[0], row[1]
	return nil
}

func (r *fakeRows) Err() error { return r.err }

func TestScanMoves(t *testing.T) {
	broken := errors.New("connection lost")
	for _, c := range []struct {
		name    string
		rows    fakeRows
		want    []engine.Direction
		wantErr string
	}{
		{"none", fakeRows{}, nil, ""},
		{"in order", fakeRows{rows: [][2]int64{{0, 2}, {1, 0}, {2, 3}}}, []engine.Direction{2, 0, 3}, ""},
		{"a gap", fakeRows{rows: [][2]int64{{0, 2}, {2, 0}}}, nil, "move 1 missing"},
		{"the rows fail", fakeRows{rows: [][2]int64{{0, 1}}, err: broken}, nil, "connection lost"},
	} {
		got, err := ScanMoves(&c.rows)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// chunkRows is a result of (first_seq, digits) rows.
type chunkRows struct {
	rows []struct {
		first int64
		dirs  string
	}
	next int
}

func (r *chunkRows) Next() bool { r.next++; return r.next <= len(r.rows) }

func (r *chunkRows) Scan(dest ...any) error {
	row := r.rows[r.next-1]
	*dest[0].(*int64), *dest[1].(*string) = row.first, row.dirs
	return nil
}

func (r *chunkRows) Err() error { return nil }

func TestScanMoveChunks(t *testing.T) {
	full := strings.Repeat("0123", ChunkLen/4)
	type row = struct {
		first int64
		dirs  string
	}
	for _, c := range []struct {
		name    string
		rows    []row
		want    int
		wantErr string
	}{
		{"none", nil, 0, ""},
		{"a tail alone", []row{{0, "312"}}, 3, ""},
		{"a chunk and its tail", []row{{0, full}, {ChunkLen, "1"}}, ChunkLen + 1, ""},
		{"an empty tail", []row{{0, full}, {ChunkLen, ""}}, ChunkLen, ""},
		{"a chunk missing", []row{{0, full}, {2 * ChunkLen, "1"}}, 0, "move 64 missing"},
		{"not a direction", []row{{0, "014"}}, 0, "move 2 is '4'"},
	} {
		got, err := ScanMoveChunks(&chunkRows{rows: c.rows})
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		var back strings.Builder
		for _, d := range got {
			back.WriteString(MoveDigit(d))
		}
		var stored strings.Builder
		for _, r := range c.rows {
			stored.WriteString(r.dirs)
		}
		if err != nil || len(got) != c.want || back.String() != stored.String() {
			t.Errorf("%s: %d moves %q, %v; want %d, %q", c.name, len(got), back.String(), err, c.want, stored.String())
		}
	}
}
