package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAge(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		42 * time.Second:            "42s",
		12 * time.Minute:            "12m",
		3*time.Hour + 5*time.Minute: "3h5m",
		26 * time.Hour:              "26h",
		50 * time.Hour:              "2d2h",
		72 * time.Hour:              "3d",
	} {
		assert.Equal(t, want, Age(d))
	}
}

func TestMinutesAgo(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		-time.Minute:     "just now",
		30 * time.Second: "just now",
		90 * time.Second: "1 min ago",
		3 * time.Hour:    "3 h ago",
		50 * time.Hour:   "2 days ago",
	} {
		assert.Equal(t, want, MinutesAgo(d))
	}
}

func TestMarkdownTable(t *testing.T) {
	t.Parallel()
	got := MarkdownTable([][]string{{"A", "Bee"}, {"ünï", MarkdownCell("x|\ny")}})
	assert.Equal(t, "| A   | Bee   |\n|-----|-------|\n| ünï | x\\| y |\n", got)
	assert.Equal(t, "", MarkdownTable(nil))
}

func TestRedraw(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "\x1b[Ha\x1b[K\n\x1b[K\nb\x1b[K\n\x1b[J", Redraw("a\n\nb\n"))
}

func TestMark(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Mark(&b, false, 'X', "Failed: x")
	Mark(&b, true, 'v', "done")
	Mark(&b, true, '!', "hm")
	assert.Equal(t, "Failed: x\n\x1b[32m✓\x1b[0m done\n\x1b[33m!\x1b[0m hm\n", b.String())
}
