package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
)

// replayJSON is /api/game/ID: an ended game move by move, for the replay
// player and for scripts. Boards are rebuilt on the server; no seed.
type replayJSON struct {
	GameID   int64  `json:"game_id"`
	Name     string `json:"name"`
	PlayerID int64  `json:"player_id"`
	Key      string `json:"player"` // short id, as in scores --json
	Size     int    `json:"size"`
	Kind     string `json:"kind"`
	Contest  string `json:"contest"`
	// Moves has one letter a move: u, r, d, l (as in `export`).
	Moves string `json:"moves"`
	// Boards[i] is the board after i moves: Size×Size characters, row by
	// row, each the tile's exponent as its index in
	// 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+
	// (0 empty, 1 a 2, b a 2048).
	Boards []string `json:"boards"`
	Scores []int    `json:"scores"` // Scores[i]: the score after i moves
	Score  int      `json:"score"`
	// Board is the final board as the bot protocol writes boards.
	Board   [][]int `json:"board"`
	MaxTile int     `json:"max_tile"`
	Won     bool    `json:"won"`
}

// replayView is the replay page's data.
type replayView struct {
	Info  replayJSON // without Boards and Scores
	Final board
}

// replayData is one ended game's replay, ready to serve.
type replayData struct {
	info   replayJSON
	view   replayView
	json   []byte
	review atomic.Pointer[reviewView] // the stored review, once read (review.go)
	// reviewLooked is when the store last had no review of the game (unix
	// nanoseconds): a page asks again only reviewRecheck later.
	reviewLooked atomic.Int64
}

func newReplayData(rp *game.Replay) (*replayData, error) {
	last := rp.Boards[len(rp.Boards)-1]
	info := replayJSON{GameID: rp.GameID, Name: rp.Player, PlayerID: rp.PlayerID, Key: rp.Key, Size: rp.Size,
		Kind: string(rp.Kind), Contest: rp.Contest, Score: rp.Scores[len(rp.Scores)-1], Board: values(last)}
	var moves strings.Builder
	for _, d := range rp.Dirs {
		moves.WriteByte("urdl"[d])
	}
	info.Moves = moves.String()
	info.MaxTile = engine.Value(last.MaxExponent())
	info.Won = last.MaxExponent() >= engine.WinExponent(rp.Size) // a tile never shrinks: won once, won at the end
	full := info
	full.Boards = make([]string, len(rp.Boards))
	for i, b := range rp.Boards {
		full.Boards[i] = tileDigits(b)
	}
	full.Scores = rp.Scores
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(full); err != nil {
		return nil, err
	}
	return &replayData{info: info, view: replayView{Info: info, Final: drawBoard(last)}, json: b.Bytes()}, nil
}

// The replay cache keeps the newest replays served: an ended game never
// changes, and rebuilding a long game's boards costs a replay of every
// move. Bounded in entries and bytes; a replay too large to keep is built
// for each request, once for those that come together (builds).
const (
	replayCacheEntries = 64
	replayCacheBytes   = 64 << 20
)

type replayCache struct {
	builds singleflight.Group // by game ID

	mu    sync.Mutex
	byID  map[int64]*replayData
	order []int64 // oldest first
	bytes int
}

func newReplayCache() *replayCache { return &replayCache{byID: make(map[int64]*replayData)} }

func (c *replayCache) get(id int64) *replayData {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[id]
}

func (c *replayCache) put(id int64, d *replayData) {
	if len(d.json) > replayCacheBytes/4 {
		return // one huge game must not push out every other
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok {
		return
	}
	c.byID[id] = d
	c.order = append(c.order, id)
	c.bytes += len(d.json)
	for len(c.order) > replayCacheEntries || c.bytes > replayCacheBytes {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.byID[old].json)
		delete(c.byID, old)
	}
}
