//go:build race

package review_test

const raceEnabled = true
