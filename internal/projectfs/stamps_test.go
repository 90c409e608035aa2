package projectfs

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for i := range 20000 {
		checkUnstamped(t, random())
		a, b := random(), random()
		if i%20 == 0 { // read in pieces: slower, so a twentieth
			checkSameRead(t, a, b, 3)
			checkSameRead(t, a, a+"T", 2)
			continue
		}
		checkSame(t, a, b)
		checkSame(t, a, a+"T")
	}
	for _, a := range stampSeeds {
		for _, b := range stampSeeds {
			piece := 1
			if len(b) > 100 {
				piece = 61 // the long fraction: byte by byte re-reads it quadratically
			}
			checkSameRead(t, a, b, piece, 7)
		}
	}
	checkSame(t, "xT2026-11-21T13:45", "x2026-11-21T13:45T")
	checkSame(t, "a 2026-11-21T13:45:00Z b", "a 2026-11-22T09:10:11.5+01:00 b")
}

func checkSame(t *testing.T, a, b string) { checkSameRead(t, a, b) }

// checkSameRead is checkSame, with the second text also read as a backup
// is, in pieces of each size given.
func checkSameRead(t *testing.T, a, b string, pieceSizes ...int) {
	re := stampRe()
	want := string(re.ReplaceAll([]byte(a), []byte("T"))) == string(re.ReplaceAll([]byte(b), []byte("T")))
	if got := sameButStamps([]byte(a), []byte(b)); got != want {
		t.Fatalf("sameButStamps(%q, %q) = %v, the replaced texts say %v", a, b, got, want)
	}
	// The backup's side read as the comparison goes, in pieces of every
	// small size: a stamp cut anywhere between two reads.
	for _, piece := range pieceSizes {
		rb := &stampless{data: make([]byte, 0, len(b)+1), src: &pieces{s: b, n: piece}}
		if got := sameStreams(&stampless{data: []byte(a), whole: true}, rb); got != want {
			t.Fatalf("sameStreams(%q, %q read %d bytes at a time) = %v, the replaced texts say %v", a, b, piece, got, want)
		}
	}
}

// pieces reads s n bytes at a time.
type pieces struct {
	s string
	n int
}

func (p *pieces) Read(b []byte) (int, error) {
	if p.s == "" {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.s)
	p.s = p.s[k:]
	return k, nil
}

// The newest backup is read only as far as the comparison with the new one
// goes: a 2 MB record that differs within its first kilobytes costs a read
// of 64 KB, not of 2 MB (issue 26).
func TestSameButStampsAsReadsOnlyWhatItNeeds(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "main.json.20261121T134500.000000000Z")
	big := strings.Repeat(`    "task 1: migrate endpoint /api/v1/resource1",`+"\n", 40_000) // 2 MB
	older := `{"id": "main-none-20261121-134500", "updatedAt": "2026-11-21T13:45:00Z",` + "\n" + big
	require.NoError(t, os.WriteFile(p, []byte(older), 0o600))
	newer := []byte(`{"id": "main-none-20261121-134600", "updatedAt": "2026-11-21T13:46:00Z",` + "\n" + big)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	assert.False(t, sameButStampsAs(root, p, newer), "the ids differ")
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(older)), "bytes allocated")
	assert.True(t, sameButStampsAs(root, p, []byte(strings.Replace(older, "13:45:00Z", "13:47:00Z", 1))), "read to the end when it must")
}

func FuzzUnstamped(f *testing.F) {
	for _, s := range stampSeeds {
		f.Add(s, "2026-11-21T13:45:00Z")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkUnstamped(t, a)
		checkSameRead(t, a, b, 1, 7)
		checkSame(t, a, string(stampRe().ReplaceAll([]byte(a), []byte("2026-11-21T13:45"))))
	})
}
