package command

import "testing"

func TestReaderAndMotionOf(t *testing.T) {
	for _, tt := range []struct {
		settings       map[string]string
		reader, motion bool
	}{
		{nil, false, true},
		{map[string]string{"screen": "game", "motion": "on"}, false, true},
		{map[string]string{"screen": "reader"}, true, true},
		{map[string]string{"motion": "off"}, false, false},
		{map[string]string{"screen": "reader", "motion": "off", "theme": "light"}, true, false},
	} {
		if got := ReaderOf(tt.settings); got != tt.reader {
			t.Errorf("ReaderOf(%v) = %v, want %v", tt.settings, got, tt.reader)
		}
		if got := MotionOf(tt.settings); got != tt.motion {
			t.Errorf("MotionOf(%v) = %v, want %v", tt.settings, got, tt.motion)
		}
	}
}
