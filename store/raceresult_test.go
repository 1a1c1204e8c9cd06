package store

import (
	"reflect"
	"testing"
)

func TestRaceResultRecorded(t *testing.T) {
	rated := &Rating{Rating: 1500}
	tests := []struct {
		name    string
		entries []RaceEntry
		owners  map[int64]int64 // game → account holding it now
		want    []RaceEntry
	}{
		{
			name:    "every racer on its own account",
			entries: []RaceEntry{{PlayerID: 1, GameID: 10, Place: 1, After: rated}, {PlayerID: 2, GameID: 11, Place: 2, After: rated}},
			owners:  map[int64]int64{10: 1, 11: 2},
			want:    []RaceEntry{{PlayerID: 1, GameID: 10, Place: 1, After: rated}, {PlayerID: 2, GameID: 11, Place: 2, After: rated}},
		},
		{
			name:    "a racer merged into an account not in the race",
			entries: []RaceEntry{{PlayerID: 1, GameID: 10, Place: 1, After: rated}, {PlayerID: 2, GameID: 11, Place: 2, After: rated}},
			owners:  map[int64]int64{10: 7, 11: 2},
			want:    []RaceEntry{{PlayerID: 7, GameID: 10, Place: 1}, {PlayerID: 2, GameID: 11, Place: 2, After: rated}},
		},
		{
			name: "two seats on one account: the one taken first, unrated",
			entries: []RaceEntry{{PlayerID: 2, GameID: 11, Place: 1, After: rated}, {PlayerID: 3, GameID: 12, Place: 2, After: rated},
				{PlayerID: 1, GameID: 10, Place: 3, After: rated}},
			owners: map[int64]int64{10: 2, 11: 2, 12: 3},
			want:   []RaceEntry{{PlayerID: 3, GameID: 12, Place: 2, After: rated}, {PlayerID: 2, GameID: 10, Place: 3}},
		},
		{
			name:    "two seats merged into an account that did not race",
			entries: []RaceEntry{{PlayerID: 2, GameID: 11, Place: 1, After: rated}, {PlayerID: 1, GameID: 10, Place: 2, After: rated}},
			owners:  map[int64]int64{10: 9, 11: 9},
			want:    []RaceEntry{{PlayerID: 9, GameID: 10, Place: 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RaceResult{Entries: tt.entries}.Recorded(tt.owners)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Recorded = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
