package projectfs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// stampSeeds are texts where finding stamps without the expression's full
// scan could go wrong: digits and dashes that are not stamps, stamps glued
// to each other, long fractions, zones cut at the window's edge.
var stampSeeds = []string{
	"", "2026-11-21T13:45:00Z", "x 2026-11-21 13:45 UTC y", "12345-11-21T13:45:00Z",
	"2026-11-21T13:45:00.123456789+01:00", "2026-11-21T13:452026-11-21T13:45", "-2026-11-21T13:45-0100",
	"2026-11-21T13:45:00." + strings.Repeat("1", 50) + " UTC", "2026-11-21T13:45:00." + strings.Repeat("7", 44) + "+0100",
	"2026-11-21T13:45:00." + strings.Repeat("9", 600) + "Z tail", "- task 1: 2026-1-21", "0000-00-00 00:00",
	"**Session:** 2026-11-21T13:45:00Z\n- task 5: migrate ✓\n", "2026-11-2", "99992026-11-21T13:45",
}

func checkUnstamped(t *testing.T, data string) {
	want := string(stampRe().ReplaceAll([]byte(data), []byte("T")))
	if got := string(unstamped([]byte(data))); got != want {
		t.Fatalf("unstamped(%q) = %q, the expression gives %q", data, got, want)
	}
}

// TestUnstamped: unstamped replaces exactly what stampRe's ReplaceAll
// replaces: the seeds, and random texts built of stamp parts.
func TestUnstamped(t *testing.T) {
	t.Parallel()
	for _, s := range stampSeeds {
		checkUnstamped(t, s)
	}
	parts := []string{"2026-11-21", "T13:45", " 13:45", ":00", ".5", ".123456", "Z", "+01:00", "-0100", " UTC", "2026", "-", "1", "x", "\n"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		checkUnstamped(t, b.String())
	}
}

func FuzzUnstamped(f *testing.F) {
	for _, s := range stampSeeds {
		f.Add(s)
	}
	f.Fuzz(checkUnstamped)
}
