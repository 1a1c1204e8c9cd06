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
