package postgres

import (
	"slices"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// chunkedMoves reads a game's moves from its chunks and tail as loadGame
// reads them, and refuses any that store.ScanMoveChunks would.
func TestChunkedMoves(t *testing.T) {
	full := strings.Repeat("0123", store.ChunkLen/4)
	tests := []struct {
		name    string
		firsts  []int64
		chunks  []string
		tail    string
		want    int // moves
		wantErr string
	}{
		{name: "no moves", want: 0},
		{name: "a tail alone", tail: "3210", want: 4},
		{name: "a chunk and its tail", firsts: []int64{0}, chunks: []string{full}, tail: "1", want: store.ChunkLen + 1},
		{name: "two chunks, no tail", firsts: []int64{0, store.ChunkLen}, chunks: []string{full, full}, want: 2 * store.ChunkLen},
		{name: "a chunk missing", firsts: []int64{0, 2 * store.ChunkLen}, chunks: []string{full, full}, wantErr: "move 64 missing"},
		{name: "a short chunk", firsts: []int64{0}, chunks: []string{full[1:]}, tail: "1", wantErr: "move 63 missing"},
		{name: "not a direction", tail: "014", wantErr: "move 2 is '4'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chunkedMoves(tt.firsts, tt.chunks, tt.tail)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %d moves, error %v; want an error with %q", len(got), err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("got %d moves, error %v; want %d", len(got), err, tt.want)
			}
			want, _ := store.AppendMoveDigits(nil, strings.Join(append(slices.Clone(tt.chunks), tt.tail), ""))
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
