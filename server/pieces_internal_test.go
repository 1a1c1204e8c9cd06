package server

import (
	"bytes"
	"errors"
	"testing"
)

// sizes records the size of each write.
type sizes struct {
	bytes.Buffer
	writes []int
	fail   int // the write that fails, from 1; 0 none
}

func (s *sizes) Write(p []byte) (int, error) {
	s.writes = append(s.writes, len(p))
	if len(s.writes) == s.fail {
		return 0, errors.New("closed")
	}
	return s.Buffer.Write(p)
}

// TestPiecesBoundWrites: a screen's writes reach the session in pieces of
// at most maxScreenWrite bytes, all of them, in order; a failed piece
// ends the write with what went before it counted.
func TestPiecesBoundWrites(t *testing.T) {
	for _, n := range []int{0, 1, maxScreenWrite, maxScreenWrite + 1, 5*maxScreenWrite + 17} {
		data := bytes.Repeat([]byte("0123456789"), n/10+1)[:n]
		var s sizes
		if got, err := (pieces{&s}).Write(data); got != n || err != nil {
			t.Fatalf("%d bytes: wrote %d, %v", n, got, err)
		}
		if !bytes.Equal(s.Bytes(), data) {
			t.Fatalf("%d bytes: the session got %d bytes, not the same", n, s.Len())
		}
		for _, w := range s.writes {
			if w > maxScreenWrite || w == 0 {
				t.Fatalf("%d bytes: a write of %d (writes %v)", n, w, s.writes)
			}
		}
	}
	s := sizes{fail: 2}
	if got, err := (pieces{&s}).Write(make([]byte, 3*maxScreenWrite)); got != maxScreenWrite || err == nil {
		t.Fatalf("the second piece failing: wrote %d, %v", got, err)
	}
}
