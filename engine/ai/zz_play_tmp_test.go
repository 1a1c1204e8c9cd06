package ai

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestTmpPlay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("AI_GAMES"))
	if n == 0 {
		t.Skip()
	}
	ms, _ := strconv.Atoi(os.Getenv("AI_MS"))
	depth, _ := strconv.Atoi(os.Getenv("AI_DEPTH"))
	size, _ := strconv.Atoi(os.Getenv("AI_SIZE"))
	b := DefaultBudget()
	if ms > 0 {
		b.Time = time.Duration(ms) * time.Millisecond
	}
	b.MaxDepth = depth
	r, err := PlayGames(context.Background(), RunConfig{Games: n, Seed: 1, Size: size, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range r.Games {
		fmt.Printf("seed %d score %d max %d moves %d %.1fs\n", g.Seed, g.Score, g.MaxTile, g.Moves, g.Seconds)
	}
	j, _ := json.Marshal(r)
	fmt.Println(string(j))
}
