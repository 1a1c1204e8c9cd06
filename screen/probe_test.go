package screen

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// orange is the colour the probe tests' view is drawn in: true colour
// shows it as it is, 256 colours as palette colour 209.
const orange = "\x1b[38;2;246;124;95m"

// profiles returns the colour profiles the model was told of, in order.
func profiles(m *testModel) []colorprofile.Profile {
	var ps []colorprofile.Profile
	for _, msg := range m.messages() {
		if p, ok := msg.(tea.ColorProfileMsg); ok {
			ps = append(ps, p.Profile)
		}
	}
	return ps
}

// da1 is a terminal's answer to the device attributes query: a VT220
// with colour.
const da1 = "\x1b[?62;22c"

// TestScreenAsksForTrueColour: a screen drawn in 256 or 16 colours asks
// the terminal whether it shows true colour and waits for the answer
// before its first frame; an answer that says so upgrades the screen,
// one that does not, or none, leaves it as it was.
func TestScreenAsksForTrueColour(t *testing.T) {
	tests := []struct {
		name    string
		profile colorprofile.Profile
		answer  string // typed before the device attributes
		want    colorprofile.Profile
	}{
		{"XTGETTCAP RGB", colorprofile.ANSI256, "\x1bP1+r524742=38\x1b\\", colorprofile.TrueColor},
		{"XTGETTCAP Tc, from 16 colours", colorprofile.ANSI, "\x1bP1+r5463\x1b\\", colorprofile.TrueColor},
		{"XTGETTCAP both", colorprofile.ANSI256, "\x1bP1+r524742=38;5463\x1b\\", colorprofile.TrueColor},
		{"DECRQSS kept the colour", colorprofile.ANSI256, "\x1bP1$r0;48;2;1;2;3m\x1b\\", colorprofile.TrueColor},
		{"DECRQSS colon form", colorprofile.ANSI256, "\x1bP1$r48:2::1:2:3m\x1b\\", colorprofile.TrueColor},
		{"DECRQSS mapped to the palette", colorprofile.ANSI256, "\x1bP1$r0;48;5;16m\x1b\\", colorprofile.ANSI256},
		{"XTGETTCAP refused", colorprofile.ANSI256, "\x1bP0+r524742\x1b\\\x1bP0+r5463\x1b\\", colorprofile.ANSI256},
		{"another capability", colorprofile.ANSI256, "\x1bP1+r436F=323536\x1b\\", colorprofile.ANSI256},
		{"no answer but the attributes", colorprofile.ANSI256, "", colorprofile.ANSI256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &testModel{sgr: orange}
			// The wait is long: only the answer can end it.
			r := start(t, m, nil, Options{Profile: tt.profile, AnswerWait: time.Hour})
			waitFor(t, "the queries", func() bool { return strings.Contains(r.out.String(), ansi.RequestPrimaryDeviceAttributes) })
			out := r.out.String()
			for _, q := range []string{"\x1bP+q524742;5463\x1b\\", "\x1bP$qm\x1b\\", ansi.RequestBackgroundColor} {
				if !strings.Contains(out, q) {
					t.Errorf("the screen does not ask %q: %q", q, out)
				}
			}
			if tt.answer != "" {
				r.typeKeys(t, tt.answer)
			}
			if strings.Contains(r.out.String(), "count") {
				t.Fatalf("a frame was drawn before the terminal answered the device attributes: %q", r.out.String())
			}
			r.typeKeys(t, da1)
			waitFor(t, "the first frame", func() bool { return r.out.shows(t, tt.want, 80, 24, orange+"count 0\nkeys ") })
			got := profiles(m)
			if got[len(got)-1] != tt.want {
				t.Errorf("the model's profile is %v, want %v", got[len(got)-1], tt.want)
			}
			if sgr := "38;2;246;124;95"; strings.Contains(r.out.String(), sgr) != (tt.want == colorprofile.TrueColor) {
				t.Errorf("true colour %s in the output: %v, want %v", sgr, !(tt.want == colorprofile.TrueColor), tt.want == colorprofile.TrueColor)
			}
			if len(m.typed()) != 0 {
				t.Errorf("the answers reached the model as keys: %q", m.typed())
			}
		})
	}
}

// TestScreenAnswerTimeout: a terminal that answers nothing gets its first
// frame when the wait is over, in the profile the screen was given; a
// true-colour answer that comes after that still upgrades it.
func TestScreenAnswerTimeout(t *testing.T) {
	m := &testModel{sgr: orange}
	r := start(t, m, nil, Options{Profile: colorprofile.ANSI256, AnswerWait: 20 * time.Millisecond})
	waitFor(t, "the first frame after the wait", func() bool {
		return r.out.shows(t, colorprofile.ANSI256, 80, 24, orange+"count 0\nkeys ")
	})
	if out := r.out.String(); !strings.Contains(out, "38;5;209") {
		t.Errorf("the first frame is not in 256 colours: %q", out)
	}
	r.typeKeys(t, "\x1bP1+r524742=38\x1b\\")
	waitFor(t, "the redraw in true colour", func() bool { return strings.Contains(r.out.String(), "38;2;246;124;95") })
	if !r.out.shows(t, colorprofile.TrueColor, 80, 24, orange+"count 0\nkeys ") {
		t.Errorf("after the late answer the screen is not the view in true colour: %q", r.out.String())
	}
}

// TestScreenNoColourStaysSo: without colour (NO_COLOR, TERM=dumb) and in
// true colour, nothing is asked about colours, and an answer that claims
// true colour changes nothing.
func TestScreenNoColourStaysSo(t *testing.T) {
	for _, p := range []colorprofile.Profile{colorprofile.ASCII, colorprofile.NoTTY, colorprofile.TrueColor} {
		t.Run(p.String(), func(t *testing.T) {
			m := &testModel{}
			r := start(t, m, nil, Options{Profile: p, AnswerWait: time.Hour})
			r.typeKeys(t, "\x1bP1+r524742=38\x1b\\"+da1)
			waitFor(t, "the first frame", func() bool { return strings.Contains(r.out.String(), "count") })
			if out := r.out.String(); strings.Contains(out, "+q") || strings.Contains(out, "$q") {
				t.Errorf("the screen asks about true colour: %q", out)
			}
			if got := profiles(m); len(got) != 1 || got[0] != p {
				t.Errorf("the model was told the profiles %v, want only %v", got, p)
			}
		})
	}
}

// TestScreenRestoresTitle: the player's window title is pushed when the
// screen starts and popped when it ends, never blanked, even when the
// last view has no title.
func TestScreenRestoresTitle(t *testing.T) {
	m := &testModel{title: "2048 · ada"}
	r := start(t, m, nil, Options{})
	r.typeKeys(t, "a")
	m.mu.Lock()
	m.title = ""
	m.mu.Unlock()
	r.typeKeys(t, "bq")
	r.wait(t)
	out := r.out.String()
	push, set, pop := strings.Index(out, pushTitle), strings.Index(out, ansi.SetWindowTitle("2048 · ada")), strings.LastIndex(out, popTitle)
	if push < 0 || set < push || pop < set {
		t.Errorf("want the title pushed, set, then popped: push at %d, set at %d, pop at %d in %q", push, set, pop, out)
	}
	if strings.Contains(out, ansi.SetWindowTitle("")) {
		t.Errorf("the title is blanked: %q", out)
	}
}

func TestProbeAnswers(t *testing.T) {
	for _, tt := range []struct {
		dcs  string
		want bool
	}{
		{"\x1bP1$r48;2;1;2;3m\x1b\\", true},
		{"\x1bP1$r0;1;48;2;1;2;3m\x1b\\", true},
		{"\x1bP1$r0;48:2::1:2:3m\x1b\\", true},
		{"\x1bP1$r48:2:1:2:3m\x1b\\", true},
		{"\x1bP1$r48;2;1;2;30m\x1b\\", false},
		{"\x1bP1$r48;5;16m\x1b\\", false},
		{"\x1bP0$r\x1b\\", false},
		{"\x1bP1$r48;2;1;2;3r\x1b\\", false}, // not SGR
		{"\x1bP1+r524742\x1b\\", false},
	} {
		if got := decrqssSaysTrueColour(tt.dcs); got != tt.want {
			t.Errorf("decrqssSaysTrueColour(%q) = %v, want %v", tt.dcs, got, tt.want)
		}
	}
	for _, tt := range []struct {
		caps string
		want bool
	}{{"RGB", true}, {"RGB=8", true}, {"Co=256;Tc", true}, {"Co=256", false}, {"", false}, {"RGBX", false}} {
		if got := termcapSaysTrueColour(tt.caps); got != tt.want {
			t.Errorf("termcapSaysTrueColour(%q) = %v, want %v", tt.caps, got, tt.want)
		}
	}
}
