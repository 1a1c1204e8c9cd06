// Package racing is the race screens: a lobby (the racers and their
// ratings, the countdown, a private room's word and its host's
// controls), the race (the player's board large, its moves in motion as
// on the game screen, every opponent's live beside it, the clock) and
// the results (places, scores, rating changes), then back to the lobby
// or out. One Model runs them all for one session, driven by the race's
// views (race.Ticket.Next) and the player's keys.
//
// It reaches races through package race (a race.Ticket's views), draws
// with tui/draw, and answers the runner's messages of tui/event, as the
// game screen does; it knows neither the game screen nor the viewers.
package racing
