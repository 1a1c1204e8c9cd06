package tui

// mode is how the kind of game on the screen differs from a free game,
// in one value the model asks wherever the kinds differ, rather than a
// branch on the kind in each place. The free game is the player's own at
// any size (freeMode); dailyMode is today's challenge (Options.Daily). A
// new kind of game is a new mode.
type mode struct {
	// title is the header's title.
	title string
	// day is the challenge's day, which titles its leaderboard and the
	// screen that says it is played; "" for a free game.
	day string
	// home is the leaderboard the header ranks the player on, and the one
	// the leaderboard screen opens on.
	home Board
	// guestNotice, when set, replaces the server's notice to guests.
	guestNotice string
	// oneGame: one game at one size without the AI, so no new game, size,
	// AI or history keys; offOneGame and offHistory say why, when one of
	// those keys is pressed.
	oneGame                bool
	offOneGame, offHistory string
	// streak: the header's second field is the days in a row played,
	// not the best score.
	streak bool
	// rankAfterMove: the rank is "–" until the game has a move (the board
	// has the game from its opening, with 0 points, and a first player
	// would read "#1" before playing), and it is read after the first.
	rankAfterMove bool
	// endedLine, when set, is the last line of a session that ends with
	// the game over.
	endedLine string
}

var freeMode = mode{title: "2048", home: BoardAllTime}

// dailyMode is today's challenge d. A guest's is a practice board, and
// the screen says so.
func dailyMode(d *Daily, guest bool) mode {
	md := mode{title: "Daily " + d.Day, day: d.Day, home: BoardDaily,
		oneGame:       true,
		offOneGame:    "The daily is one game: no new game, other sizes or AI.",
		offHistory:    "Your games are on the game screen, not in the daily.",
		streak:        true,
		rankAfterMove: true,
		endedLine:     "Today's challenge is played and saved; the next one starts at midnight UTC."}
	if guest {
		// Whatever the server says of guests, on the daily they must know
		// that this is not the day's board.
		md.title, md.guestNotice = "Daily practice", DailyPracticeNotice
	}
	return md
}
