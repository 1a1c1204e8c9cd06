//go:build race

package ai

// raceEnabled lets tests shrink their workloads under the race detector.
const raceEnabled = true
