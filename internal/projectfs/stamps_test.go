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

// unstamped is data with each stamp nextStamp finds replaced by "T".
func unstamped(data []byte) []byte {
	var out []byte
	for pos := 0; ; {
		j, m := nextStamp(data, pos)
		if j < 0 {
			return append(out, data[pos:]...)
		}
		out = append(append(out, data[pos:j]...), 'T')
		pos = j + m
	}
}

func checkUnstamped(t *testing.T, data string) {
	want := string(stampRe().ReplaceAll([]byte(data), []byte("T")))
	if got := string(unstamped([]byte(data))); got != want {
		t.Fatalf("unstamped(%q) = %q, the expression gives %q", data, got, want)
	}
}

// TestUnstamped: nextStamp finds exactly what stampRe's ReplaceAll
// replaces, and sameButStamps compares texts as the replaced texts compare:
// the seeds, and random texts built of stamp parts.
func TestUnstamped(t *testing.T) {
	t.Parallel()
	for _, s := range stampSeeds {
		checkUnstamped(t, s)
	}
	parts := []string{"2026-11-21", "T13:45", " 13:45", ":00", ".5", ".123456", "Z", "+01:00", "-0100", " UTC", "2026", "-", "1", "x", "\n"}
	r := rand.New(rand.NewPCG(1, 2))
	random := func() string {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for range 20000 {
		checkUnstamped(t, random())
		a, b := random(), random()
		checkSame(t, a, b)
		checkSame(t, a, a+"T")
	}
	for _, a := range stampSeeds {
		for _, b := range stampSeeds {
			checkSame(t, a, b)
		}
	}
	checkSame(t, "xT2026-11-21T13:45", "x2026-11-21T13:45T")
	checkSame(t, "a 2026-11-21T13:45:00Z b", "a 2026-11-22T09:10:11.5+01:00 b")
}

func checkSame(t *testing.T, a, b string) {
	re := stampRe()
	want := string(re.ReplaceAll([]byte(a), []byte("T"))) == string(re.ReplaceAll([]byte(b), []byte("T")))
	if got := sameButStamps([]byte(a), []byte(b)); got != want {
		t.Fatalf("sameButStamps(%q, %q) = %v, the replaced texts say %v", a, b, got, want)
	}
}

func FuzzUnstamped(f *testing.F) {
	for _, s := range stampSeeds {
		f.Add(s, "2026-11-21T13:45:00Z")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkUnstamped(t, a)
		checkSame(t, a, b)
		checkSame(t, a, string(stampRe().ReplaceAll([]byte(a), []byte("2026-11-21T13:45"))))
	})
}
