package postgres_test

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/postgres/pgtest"
)

// TestRaceKeys: one owner per race key. A live owner's key is not taken
// unless the claim names the race it replaces; a release of a replaced
// race leaves the new one; a dead node's key is free once its lease runs
// out; of many nodes claiming at once, one wins and all agree.
func TestRaceKeys(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	a, b := startNode(t, url, "a").store, startNode(t, url, "b").store
	claim := func(s *postgres.Store, key, id, replace string) (string, string) {
		t.Helper()
		race, node, err := s.ClaimRace(ctx, key, id, replace)
		if err != nil {
			t.Fatal(err)
		}
		return race, node
	}
	if race, node := claim(a, "room:x", "race:1", ""); race != "race:1" || node != "a" {
		t.Fatalf("first claim: %s on %s", race, node)
	}
	if race, node := claim(b, "room:x", "race:2", ""); race != "race:1" || node != "a" {
		t.Fatalf("a live owner's key: %s on %s", race, node)
	}
	if race, node := claim(b, "room:x", "race:2", "race:9"); race != "race:1" || node != "a" {
		t.Fatalf("replacing another race: %s on %s", race, node)
	}
	if race, node := claim(b, "room:x", "race:2", "race:1"); race != "race:2" || node != "b" {
		t.Fatalf("replacing the key's race: %s on %s", race, node)
	}
	if err := a.ReleaseRace(ctx, "room:x", "race:1"); err != nil {
		t.Fatal(err)
	}
	if race, node := claim(a, "room:x", "race:3", ""); race != "race:2" || node != "b" {
		t.Fatalf("after the replaced owner's release: %s on %s", race, node)
	}
	if err := b.ReleaseRace(ctx, "room:x", "race:2"); err != nil {
		t.Fatal(err)
	}
	if race, node := claim(a, "room:x", "race:3", ""); race != "race:3" || node != "a" {
		t.Fatalf("after the owner's release: %s on %s", race, node)
	}

	dead := startNode(t, url, "dead", postgres.WithLease(time.Second)).store
	claim(dead, "lobby:4", "race:d", "")
	dead.Close() // its leases are no longer renewed
	if race, _ := claim(a, "lobby:4", "race:a", ""); race != "race:d" {
		t.Fatalf("a fresh lease was taken: %s", race)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if race, node := claim(a, "lobby:4", "race:a", ""); race == "race:a" && node == "a" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a dead node's race key is still held after 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	var wg sync.WaitGroup
	won := make([]string, 16)
	for i := range won {
		wg.Go(func() {
			s := []*postgres.Store{a, b}[i%2]
			race, _, err := s.ClaimRace(ctx, "room:crowd", fmt.Sprintf("race:%d", i), "")
			if err != nil {
				t.Error(err)
			}
			won[i] = race
		})
	}
	wg.Wait()
	for _, w := range won {
		if w != won[0] {
			t.Fatalf("claims at once disagree: %v", won)
		}
	}
}

// TestRaceAcrossNodesOnPostgreSQL: a private room opened on one node and
// joined from the other, through PostgreSQL's bus: the host starts it,
// both race on the same tiles and see each other's moves, and the one
// result is stored, with ratings.
func TestRaceAcrossNodesOnPostgreSQL(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	type node struct {
		*game.Service
		races *race.Hall
	}
	open := func(name string) (*postgres.Store, node) {
		s, err := postgres.Open(ctx, url, postgres.WithLogger(quiet), postgres.WithNode(name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		<-s.Bus().Listening()
		svc := game.New(s, quiet, game.WithBus(s.Bus()))
		return s, node{svc, race.New(svc, race.WithTimes(0, 50*time.Millisecond, 5*time.Second))}
	}
	store, a := open("a")
	_, b := open("b")
	seat := func(svc node, name string) *game.Seat {
		p, err := svc.Identify(ctx, "SHA256:"+name, "ssh-ed25519", name)
		if err != nil {
			t.Fatal(err)
		}
		st := svc.Seat(p, nil)
		t.Cleanup(st.Close)
		return st
	}
	h, err := a.races.Join(ctx, seat(a, "ann"), netip.Addr{}, "pg-room", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := b.races.Join(ctx, seat(b, "bob"), netip.Addr{}, "pg-room", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	next := func(tk *race.Ticket, what string, ok func(race.View) bool) race.View {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		for {
			v, err := tk.Next(ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if ok(v) {
				return v
			}
		}
	}
	next(h, "bob in ann's room", func(v race.View) bool { return len(v.Racers) == 2 })
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	next(g, "the start on bob's node", func(v race.View) bool { return v.Phase >= race.Running })
	ph, pb := h.Play(), g.Play()
	if ph.Board() != pb.Board() {
		t.Fatal("the racers of two nodes start on different tiles")
	}
	for range 5 {
		for _, d := range engine.Directions() {
			if res, err := pb.Move(ctx, d); err != nil {
				t.Fatal(err)
			} else if res.Moved {
				break
			}
		}
	}
	next(h, "bob's moves on ann's node", func(v race.View) bool { return v.Racers[1].Board == pb.Board() })
	end := next(g, "the end on bob's node", func(v race.View) bool { return v.Phase == race.Finished })
	if end.Racers[0].Place+end.Racers[1].Place != 3 || end.Racers[1].After == 0 {
		t.Fatalf("the result: %+v", end.Racers)
	}
	board, err := store.RatingBoard(ctx, 10)
	if err != nil || len(board) != 2 || board[0].Races != 1 {
		t.Fatalf("rating board %+v, %v", board, err)
	}
}
