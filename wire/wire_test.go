package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The documents that state this contract for people. The tests below hold
// the code to them: a field, limit or status that changes on one side only
// fails here.
const (
	protocolDoc = "../docs/bot-protocol.md"
	readme      = "../README.md"
)

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the documented contract: %v", err)
	}
	return string(b)
}

// section returns the text under the heading (its whole line, "## " or
// "### " included) up to the next heading of any level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	var (
		out bytes.Buffer
		in  bool
	)
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if in {
				break
			}
			in = line == heading
			continue
		}
		if in {
			out.WriteString(line)
			out.WriteByte('\n')
		}
	}
	if !in {
		t.Fatalf("no heading %q", heading)
	}
	return out.String()
}

var tableName = regexp.MustCompile("^\\| `([a-z_0-9]+)` \\|")

// tableNames returns the names in the first column of the markdown tables
// in text, in order: the JSON fields (or statuses) a table documents.
func tableNames(text string) []string {
	var names []string
	for line := range strings.Lines(text) {
		if m := tableName.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// jsonNames returns the JSON names of v's fields, in the order
// encoding/json writes them.
func jsonNames(v any) []string {
	typ := reflect.TypeOf(v)
	names := make([]string, 0, typ.NumField())
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// TestFieldNames pins every JSON name, in the order the encoder writes
// them, to the names docs/bot-protocol.md gives.
func TestFieldNames(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want []string
	}{
		{"state line", State{}, []string{"board", "score", "moves", "moved", "gained", "won", "over", "race"}},
		{"race", Race{}, []string{"id", "room", "phase", "left_ms", "place", "opponents"}},
		{"opponent", Opponent{}, []string{"name", "player", "bot", "score", "max_tile", "over", "left", "place"}},
		{"error line", Error{}, []string{"error"}},
		{"scores --json", ScoreEntry{}, []string{"rank", "name", "player", "score", "max_tile", "moves", "won", "ended", "game_id", "size", "kind", "contest", "seed"}},
		{"scores --races --json", RatingEntry{}, []string{"rank", "name", "player", "rating", "deviation", "races"}},
		{"scores --races --bots --json", BotRaceEntry{}, []string{"rank", "name", "player", "races", "wins", "best"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonNames(tt.v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%T fields = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}

// TestDocumentedFields reads the field tables of docs/bot-protocol.md:
// each must list exactly the type's fields, so that neither a field nor
// its documentation is added alone.
func TestDocumentedFields(t *testing.T) {
	doc := readDoc(t, protocolDoc)
	race := section(t, doc, "### Racing bot: `--race`")
	// The opponents' fields are listed in the prose of the opponents row.
	var opponentRow string
	for line := range strings.Lines(race) {
		if strings.HasPrefix(line, "| `opponents` |") {
			opponentRow = line
		}
	}
	var opponentNames []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(strings.TrimPrefix(opponentRow, "| `opponents` |"), -1) {
		opponentNames = append(opponentNames, m[1])
	}
	scores := section(t, doc, "## `scores --json`")
	tests := []struct {
		name string
		doc  []string
		v    any
		omit []string // fields the doc leaves out of that table, and why
	}{
		// race is documented in its own table, under the racing bot.
		{"state line", tableNames(section(t, doc, "### State line")), State{}, []string{"race"}},
		{"race", tableNames(race), Race{}, nil},
		{"opponent", opponentNames, Opponent{}, nil},
		{"scores --json", tableNames(scores), ScoreEntry{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, n := range jsonNames(tt.v) {
				if !slices.Contains(tt.omit, n) {
					want = append(want, n)
				}
			}
			if !reflect.DeepEqual(tt.doc, want) {
				t.Errorf("%s documents %q; %T has %q", protocolDoc, tt.doc, tt.v, want)
			}
		})
	}
	// The ratings' fields are named in prose, in order.
	for _, tt := range []struct {
		lead string
		v    any
	}{
		{"`scores --races --json` is an array of ", RatingEntry{}},
		{"`scores --races --bots --json` of ", BotRaceEntry{}},
	} {
		names := jsonNames(tt.v)
		if !containsNamesInOrder(scores, tt.lead, names) {
			t.Errorf("%s: %q does not list %q", protocolDoc, tt.lead, names)
		}
	}
}

// containsNamesInOrder reports whether the prose after lead names each of
// names, in backquotes, in that order (explanations may sit between them).
func containsNamesInOrder(text, lead string, names []string) bool {
	text = strings.Join(strings.Fields(text), " ")
	i := strings.Index(text, lead)
	if i < 0 {
		return false
	}
	rest := text[i+len(lead):]
	for _, n := range names {
		j := strings.Index(rest, "`"+n+"`")
		if j < 0 {
			return false
		}
		rest = rest[j+len(n)+2:]
	}
	return true
}

// TestStateLine encodes state lines and compares them with the lines the
// protocol documents, byte for byte.
func TestStateLine(t *testing.T) {
	doc := readDoc(t, protocolDoc)
	tests := []struct {
		name  string
		state State
		want  string
		inDoc bool // want is the example line of docs/bot-protocol.md
	}{
		{
			name: "documented example",
			state: State{
				Board: [][]int{{0, 2, 0, 0}, {0, 0, 0, 0}, {0, 4, 0, 0}, {0, 0, 0, 2}},
				Score: 4, Moves: 1, Moved: true, Gained: 4,
			},
			want:  `{"board":[[0,2,0,0],[0,0,0,0],[0,4,0,0],[0,0,0,2]],"score":4,"moves":1,"moved":true,"gained":4,"won":false,"over":false}`,
			inDoc: true,
		},
		{
			// Every field but race is written even at its zero value:
			// a bot reads "moved":false, never a missing field.
			name:  "opening line, nothing moved",
			state: State{Board: [][]int{{2, 0, 0}, {0, 0, 0}, {0, 0, 2}}},
			want:  `{"board":[[2,0,0],[0,0,0],[0,0,2]],"score":0,"moves":0,"moved":false,"gained":0,"won":false,"over":false}`,
		},
		{
			name:  "won and over",
			state: State{Board: [][]int{{2048, 4}, {8, 2}}, Score: 20000, Moves: 900, Gained: 2048, Moved: true, Won: true, Over: true},
			want:  `{"board":[[2048,4],[8,2]],"score":20000,"moves":900,"moved":true,"gained":2048,"won":true,"over":true}`,
		},
		{
			// A race's zero values are all written: "room":"" is the
			// public lobby, "place":0 not yet placed, [] no opponents.
			name: "racing, public lobby, alone so far",
			state: State{Board: [][]int{{0, 2}, {2, 0}},
				Race: &Race{ID: "race:x", Phase: RaceRunning, LeftMS: 1500, Opponents: []Opponent{}}},
			want: `{"board":[[0,2],[2,0]],"score":0,"moves":0,"moved":false,"gained":0,"won":false,"over":false,` +
				`"race":{"id":"race:x","room":"","phase":"running","left_ms":1500,"place":0,"opponents":[]}}`,
		},
		{
			name: "racing, finished",
			state: State{Board: [][]int{{4, 2}, {2, 4}}, Score: 4, Moves: 2, Over: true,
				Race: &Race{ID: "race:y", Room: "otter", Phase: RaceFinished, Place: 1, Opponents: []Opponent{
					{Name: "guest", Bot: false, Score: 0, MaxTile: 2, Left: true, Place: 2},
				}}},
			want: `{"board":[[4,2],[2,4]],"score":4,"moves":2,"moved":false,"gained":0,"won":false,"over":true,` +
				`"race":{"id":"race:y","room":"otter","phase":"finished","left_ms":0,"place":1,` +
				`"opponents":[{"name":"guest","player":"","bot":false,"score":0,"max_tile":2,"over":false,"left":true,"place":2}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(t, tt.state)
			if got != tt.want {
				t.Errorf("encoded\n %s\nwant\n %s", got, tt.want)
			}
			if tt.inDoc && !strings.Contains(doc, "\n"+tt.want+"\n") {
				t.Errorf("%s no longer shows the line\n %s", protocolDoc, tt.want)
			}
			var back State
			dec := json.NewDecoder(strings.NewReader(got))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&back); err != nil {
				t.Fatalf("decode %s: %v", got, err)
			}
			if !reflect.DeepEqual(back, tt.state) {
				t.Errorf("round trip: got %+v, want %+v", back, tt.state)
			}
		})
	}
}

// TestDocumentedRaceLine decodes the racing example of docs/bot-protocol.md
// into State, allowing no unknown field, and encodes it back to the same
// bytes: the example is a line the server could have written.
func TestDocumentedRaceLine(t *testing.T) {
	race := section(t, readDoc(t, protocolDoc), "### Racing bot: `--race`")
	_, block, ok := strings.Cut(race, "```json\n")
	if !ok {
		t.Fatalf("%s: no JSON example under the racing bot", protocolDoc)
	}
	block, _, _ = strings.Cut(block, "```")
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(block)); err != nil {
		t.Fatalf("the racing example is not JSON: %v\n%s", err, block)
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(compact.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("decode the racing example: %v", err)
	}
	if s.Race == nil || s.Race.Phase != RaceRunning || len(s.Race.Opponents) != 1 {
		t.Fatalf("the racing example decoded to %+v", s.Race)
	}
	if got := marshal(t, s); got != compact.String() {
		t.Errorf("re-encoded\n %s\nthe doc shows\n %s", got, compact.String())
	}
}

// TestRacePhases: the phases are the words the doc quotes.
func TestRacePhases(t *testing.T) {
	doc := readDoc(t, protocolDoc)
	want := fmt.Sprintf("`%q`, then `%q` on the last line", RaceRunning, RaceFinished)
	if RaceRunning != "running" || RaceFinished != "finished" || !strings.Contains(doc, want) {
		t.Errorf("phases %q, %q; %s must say %s", RaceRunning, RaceFinished, protocolDoc, want)
	}
}

// TestErrorLine: an error is one object with one string field, "error".
func TestErrorLine(t *testing.T) {
	doc := readDoc(t, protocolDoc)
	tests := []struct {
		msg   string
		want  string
		inDoc bool
	}{
		{"…", `{"error":"…"}`, true},
		{
			"too many moves: this server plays at most 50 a second; this one was not played",
			`{"error":"too many moves: this server plays at most 50 a second; this one was not played"}`,
			true,
		},
		{`unknown command "x\"y": send up`, `{"error":"unknown command \"x\\\"y\": send up"}`, false},
		{"", `{"error":""}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := marshal(t, Error{Error: tt.msg})
			if got != tt.want {
				t.Errorf("encoded %s, want %s", got, tt.want)
			}
			if tt.inDoc && !strings.Contains(doc, "`"+tt.want+"`") {
				t.Errorf("%s no longer shows %s", protocolDoc, tt.want)
			}
			var back Error
			if err := json.Unmarshal([]byte(got), &back); err != nil || back.Error != tt.msg {
				t.Errorf("round trip: %q, %v; want %q", back.Error, err, tt.msg)
			}
		})
	}
	// A bot tells an error line from a state line by its field: a
	// state line decoded as an Error has none.
	var e Error
	if err := json.Unmarshal([]byte(marshal(t, State{Board: [][]int{{0}}})), &e); err != nil || e.Error != "" {
		t.Errorf("a state line read as an error: %+v, %v", e, err)
	}
}

// TestScoreEntry encodes rows of `scores --json` and reads them back.
func TestScoreEntry(t *testing.T) {
	ended := time.Date(2026, 11, 27, 9, 30, 5, 123456789, time.UTC)
	tests := []struct {
		name  string
		entry ScoreEntry
		want  string
	}{
		{
			// ended is always written: null while the game is in
			// progress; contest and seed are absent off the daily board.
			name:  "in progress",
			entry: ScoreEntry{Rank: 1, Name: "ann", Player: "Q2x7Yt0aB9cd", Score: 2048, MaxTile: 256, Moves: 300, GameID: 7, Size: 4, Kind: "human"},
			want:  `{"rank":1,"name":"ann","player":"Q2x7Yt0aB9cd","score":2048,"max_tile":256,"moves":300,"won":false,"ended":null,"game_id":7,"size":4,"kind":"human"}`,
		},
		{
			name:  "ended, won, bot",
			entry: ScoreEntry{Rank: 2, Name: "<3", Player: "abcdefghijkl", Score: 20000, MaxTile: 2048, Moves: 1000, Won: true, Ended: &ended, GameID: 9, Size: 4, Kind: "bot"},
			want:  `{"rank":2,"name":"\u003c3","player":"abcdefghijkl","score":20000,"max_tile":2048,"moves":1000,"won":true,"ended":"2026-11-27T09:30:05.123456789Z","game_id":9,"size":4,"kind":"bot"}`,
		},
		{
			name:  "daily, day on",
			entry: ScoreEntry{Rank: 1, Name: "bo", Player: "mnopqrstuvwx", Score: 8, MaxTile: 4, Moves: 3, GameID: 11, Size: 3, Kind: "human", Contest: "daily:2026-11-27"},
			want:  `{"rank":1,"name":"bo","player":"mnopqrstuvwx","score":8,"max_tile":4,"moves":3,"won":false,"ended":null,"game_id":11,"size":3,"kind":"human","contest":"daily:2026-11-27"}`,
		},
		{
			// The seed is above 2^53: as a string no JSON reader rounds it.
			name:  "daily, day over",
			entry: ScoreEntry{Rank: 3, Name: "cy", Player: "yz0123456789", Score: 16, MaxTile: 8, Moves: 5, Ended: &ended, GameID: 12, Size: 8, Kind: "human", Contest: "daily:2026-11-26", Seed: "18446744073709551615"},
			want:  `{"rank":3,"name":"cy","player":"yz0123456789","score":16,"max_tile":8,"moves":5,"won":false,"ended":"2026-11-27T09:30:05.123456789Z","game_id":12,"size":8,"kind":"human","contest":"daily:2026-11-26","seed":"18446744073709551615"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(t, tt.entry)
			if got != tt.want {
				t.Errorf("encoded\n %s\nwant\n %s", got, tt.want)
			}
			var back ScoreEntry
			dec := json.NewDecoder(strings.NewReader(got))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&back); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if (back.Ended == nil) != (tt.entry.Ended == nil) || back.Ended != nil && !back.Ended.Equal(*tt.entry.Ended) {
				t.Errorf("ended: got %v, want %v", back.Ended, tt.entry.Ended)
			}
			back.Ended, tt.entry.Ended = nil, nil
			if back != tt.entry {
				t.Errorf("round trip: got %+v, want %+v", back, tt.entry)
			}
			// The doc promises an RFC 3339 time; a script parses it so.
			var raw struct {
				Ended *string `json:"ended"`
			}
			if err := json.Unmarshal([]byte(got), &raw); err != nil {
				t.Fatal(err)
			}
			if raw.Ended != nil {
				if _, err := time.Parse(time.RFC3339, *raw.Ended); err != nil {
					t.Errorf("ended %q is not RFC 3339: %v", *raw.Ended, err)
				}
			}
		})
	}
}

// TestRatingEntries encodes the rows of `scores --races --json` and
// `scores --races --bots --json`.
func TestRatingEntries(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{RatingEntry{Rank: 1, Name: "ann", Player: "Q2x7Yt0aB9cd", Rating: 1500, Deviation: 350, Races: 0},
			`{"rank":1,"name":"ann","player":"Q2x7Yt0aB9cd","rating":1500,"deviation":350,"races":0}`},
		{RatingEntry{Rank: 2, Name: "bo", Player: "abcdefghijkl", Rating: 1612.5, Deviation: 80.25, Races: 12},
			`{"rank":2,"name":"bo","player":"abcdefghijkl","rating":1612.5,"deviation":80.25,"races":12}`},
		{BotRaceEntry{Rank: 1, Name: "solver", Player: "mnopqrstuvwx", Races: 4, Wins: 3, Best: 30000},
			`{"rank":1,"name":"solver","player":"mnopqrstuvwx","races":4,"wins":3,"best":30000}`},
	}
	for _, tt := range tests {
		if got := marshal(t, tt.v); got != tt.want {
			t.Errorf("%T encoded %s, want %s", tt.v, got, tt.want)
		}
	}
}

// TestExitStatuses compares each constant with its row in the exit status
// tables of the README and docs/bot-protocol.md: the number and a phrase
// of its meaning.
func TestExitStatuses(t *testing.T) {
	tests := []struct {
		name   string
		code   int
		want   int
		phrase string // in the row of that status, in both documents
	}{
		{"ExitOK", ExitOK, 0, "ok"},
		{"ExitError", ExitError, 1, "server error"},
		{"ExitUsage", ExitUsage, 2, "unknown command or bad flags"},
		{"ExitTakenOver", ExitTakenOver, 3, "a newer session took over the game"},
		{"ExitRestart", ExitRestart, 4, "the server is restarting"},
		{"ExitRefuted", ExitRefuted, 5, "refuted"},
		{"ExitNotFound", ExitNotFound, 6, "no such game"},
		{"ExitInPlay", ExitInPlay, 7, "still in play"},
		{"ExitNewer", ExitNewer, 8, "a record from a newer ssh2048"},
		{"ExitInactive", ExitInactive, 9, "closed for inactivity"},
		{"ExitRoom", ExitRoom, 10, "the room is full"},
		{"ExitBanned", ExitBanned, 11, "banned"},
		{"ExitAdminRefused", ExitAdminRefused, 12, "refused"},
		{"ExitFlooded", ExitFlooded, 13, "64 KiB of input ahead of what"},
		{"ExitRefused", ExitRefused, 20, "refused"},
		{"ExitMerge", ExitMerge, 21, "--merge"},
	}
	docs := map[string]map[int]string{}
	for _, d := range []struct{ path, heading string }{
		{readme, "## Commands over SSH"},
		{protocolDoc, "## Exit statuses"},
	} {
		rows := map[int]string{}
		for line := range strings.Lines(section(t, readDoc(t, d.path), d.heading)) {
			var n int
			if _, err := fmt.Sscanf(line, "| `%d` |", &n); err == nil {
				rows[n] = line
			}
		}
		if len(rows) != len(tests) {
			t.Errorf("%s documents %d exit statuses; wire has %d", d.path, len(rows), len(tests))
		}
		docs[d.path] = rows
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.code != tt.want {
				t.Fatalf("%s = %d, documented as %d", tt.name, tt.code, tt.want)
			}
			for path, rows := range docs {
				if row, ok := rows[tt.code]; !ok || !strings.Contains(row, tt.phrase) {
					t.Errorf("%s: status %d is documented as %q, want a row saying %q", path, tt.code, row, tt.phrase)
				}
			}
		})
	}
}

// TestLimits compares the limits with the numbers the doc gives.
func TestLimits(t *testing.T) {
	doc := strings.Join(strings.Fields(readDoc(t, protocolDoc)), " ")
	tests := []struct {
		name  string
		value int
		want  int
		says  string // what docs/bot-protocol.md says, built from the value
	}{
		{"MaxLineBytes", MaxLineBytes, 64, fmt.Sprintf("lines over %d bytes", MaxLineBytes)},
		{"MaxScoresLimit", MaxScoresLimit, 1000, fmt.Sprintf("top K players (1–%d, default 10)", MaxScoresLimit)},
		{"MaxScoresLimit, paging", MaxScoresLimit, 1000, fmt.Sprintf("read the whole board, %d at a time", MaxScoresLimit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.value != tt.want {
				t.Errorf("%s = %d, want %d", tt.name, tt.value, tt.want)
			}
			if !strings.Contains(doc, tt.says) {
				t.Errorf("%s does not say %q", protocolDoc, tt.says)
			}
		})
	}
}

// TestCommands: the four words and their one-letter forms, as the doc
// lists them.
func TestCommands(t *testing.T) {
	words := []string{CommandUp, CommandDown, CommandLeft, CommandRight}
	if want := []string{"up", "down", "left", "right"}; !reflect.DeepEqual(words, want) {
		t.Fatalf("commands %q, want %q", words, want)
	}
	var long, short []string
	for _, w := range words {
		long = append(long, "`"+w+"`")
		short = append(short, "`"+w[:1]+"`")
	}
	says := strings.Join(long, ", ") + ", or " + strings.Join(short, ", ")
	if doc := readDoc(t, protocolDoc); !strings.Contains(doc, says) {
		t.Errorf("%s does not list the commands as %s", protocolDoc, says)
	}
}
