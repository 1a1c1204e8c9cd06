// Package draw is how every ssh2048 screen draws: the board in the
// original game's colours (or with boxes and brackets where there is no
// colour) at the largest tile size that fits, the styles for each colour
// profile and background, and the lines a frame is made of, measured as
// they are built and centred in the window. Pane is the window a screen
// that shows a game draws in.
//
// It holds no Bubble Tea model, and imports none of the screens: the game
// screen (package tui), the screens that show games (tui/viewer) and the
// race screens all draw with it. What every session with the same
// profile, tile size and board size would draw alike (styles, tiles,
// frames of the help line) is drawn once and shared between them.
package draw
