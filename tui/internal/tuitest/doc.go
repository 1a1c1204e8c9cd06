// Package tuitest is what the tests of package tui and its sub-packages
// share: a harness that runs a model as package screen does (Live), the
// real game service over a SQLite file with players and games in it, and
// readers of what a frame shows.
package tuitest
