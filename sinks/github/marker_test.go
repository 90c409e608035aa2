package github_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/sinks/github"
)

func TestMarker(t *testing.T) {
	tests := []struct{ agent, want string }{
		{"main", "<!-- ccc:checkpoint agent=main -->"},
		{"main-2", "<!-- ccc:checkpoint agent=main-2 -->"},
		{"odd name", "<!-- ccc:checkpoint agent=odd%20name -->"},
		{"a  b", "<!-- ccc:checkpoint agent=a%20%20b -->"},
		{" main\n", "<!-- ccc:checkpoint agent=%20main%0A -->"},
		{"a-->b", "<!-- ccc:checkpoint agent=a--%3Eb -->"},
		{"<!--x", "<!-- ccc:checkpoint agent=%3C%21--x -->"},
		{"50%", "<!-- ccc:checkpoint agent=50%25 -->"},
		{"dév", "<!-- ccc:checkpoint agent=dév -->"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			assert.Equal(t, tt.want, github.Marker(tt.agent))
		})
	}
}

// Names that share a prefix with another agent or differ only in their
// spaces never adopt each other's comment.
func TestMarkerNamesDoNotCollide(t *testing.T) {
	names := []string{
		"main", "main 2", "main/2", "main@box", "main:2", "main+2", "main (2)", "main#2",
		"main-2", "main2", "main%202", "a b", "a  b", "main ", " main", "a\tb",
	}
	for _, writer := range names {
		body := "## Checkpoint Status\n\n" + github.Marker(writer)
		for _, reader := range names {
			assert.Equal(t, reader == writer, github.HasMarker(body, reader), "comment of %q read by %q", writer, reader)
		}
	}
}

func TestHasMarker(t *testing.T) {
	const status = "## Checkpoint Status\n\n**Next:** ship\n\n"
	tests := []struct {
		name  string
		body  string
		agent string
		want  bool
	}{
		{"as written", status + github.Marker("main"), "main", true},
		{"trailing blank lines", status + github.Marker("main") + "\n\n  \n", "main", true},
		{"CRLF from an edit on github.com", "## Checkpoint Status\r\n\r\n" + github.Marker("main") + "\r\n", "main", true},
		{"indented", status + "  " + github.Marker("main"), "main", true},
		{"only the marker", github.Marker("main"), "main", true},
		{"encoded agent", status + github.Marker("odd name"), "odd name", true},
		{"other agent with our prefix", status + github.Marker("main-2"), "main", false},
		{"we are the longer name", status + github.Marker("main"), "main-2", false},
		{"other agent suffix", status + github.Marker("xmain"), "main", false},
		{"not the last line", github.Marker("main") + "\n\nsomeone replied below", "main", false},
		{"quoted in text", status + "see `" + github.Marker("main") + "`", "main", false},
		{"spacing changed", status + "<!--ccc:checkpoint agent=main-->", "main", false},
		{"empty", "", "main", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, github.HasMarker(tt.body, tt.agent))
		})
	}
}
