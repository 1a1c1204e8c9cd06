package store

import (
	"errors"
	"testing"
)

func TestCheckSetting(t *testing.T) {
	tests := []struct {
		key, value         string
		wantKey, wantValue string
		ok                 bool
	}{
		{"theme", "light", "theme", "light", true},
		{"Theme", "HIGH-CONTRAST", "theme", "high-contrast", true},
		{"theme", "", "theme", "default", true},
		{"screen", "reader", "screen", "reader", true},
		{"motion", "off", "motion", "off", true},
		{"theme", "purple", "", "", false},
		{"colour", "light", "", "", false},
		{"motion", "on\x1b[2J", "", "", false},
	}
	for _, tt := range tests {
		k, v, err := CheckSetting(tt.key, tt.value)
		if tt.ok && (err != nil || k != tt.wantKey || v != tt.wantValue) {
			t.Errorf("CheckSetting(%q, %q) = %q, %q, %v; want %q, %q", tt.key, tt.value, k, v, err, tt.wantKey, tt.wantValue)
		}
		if !tt.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckSetting(%q, %q) = %q, %q, %v; want ErrInvalid", tt.key, tt.value, k, v, err)
		}
	}
}
