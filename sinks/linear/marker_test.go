package linear_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

func TestMarker(t *testing.T) {
	tests := []struct{ agent, want string }{
		{"main", "ccc checkpoint · agent: `main`"},
		{"worker_1.b-2", "ccc checkpoint · agent: `worker_1.b-2`"},
		{"dév", "ccc checkpoint · agent: `dév`"},
		{"main 2", "ccc checkpoint · agent: `main%202`"},
		{"a  b", "ccc checkpoint · agent: `a%20%20b`"},
		{"ma`in", "ccc checkpoint · agent: `ma%60in`"},
		{"odd\nname", "ccc checkpoint · agent: `odd%0Aname`"},
		{"50%", "ccc checkpoint · agent: `50%25`"},
		{"main (2)", "ccc checkpoint · agent: `main%20%282%29`"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			assert.Equal(t, tt.want, linear.Marker(tt.agent))
		})
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
		{"as written", status + linear.Marker("main"), "main", true},
		{"trailing blank lines", status + linear.Marker("main") + "\n\n  \n", "main", true},
		{"CRLF", "## Checkpoint Status\r\n\r\n" + linear.Marker("main") + "\r\n", "main", true},
		{"code marks dropped", status + "ccc checkpoint · agent: main", "main", true},
		{"wrapped in html", status + "<p><sub>ccc checkpoint · agent: <code>main</code></sub></p>", "main", true},
		{"entities", status + "ccc checkpoint &middot; agent:&nbsp;`main`", "main", true},
		{"escaped", status + "ccc checkpoint · agent: worker\\_1", "worker_1", true},
		{"escaped is not another name", status + "ccc checkpoint · agent: worker\\_1", "worker1", false},
		{"emphasised", status + "_ccc checkpoint · agent: `main`_", "main", true},
		{"strong, ours ends in _", status + "**ccc checkpoint · agent: `main_`**", "main_", true},
		{"nbsp and doubled spaces", status + "ccc checkpoint\u00a0·  agent: `main`", "main", true},
		{"encoded name", status + linear.Marker("main (2)"), "main (2)", true},
		{"other agent with our prefix", status + linear.Marker("main-2"), "main", false},
		{"other agent dotted", status + linear.Marker("main.2"), "main", false},
		{"other agent suffix", status + linear.Marker("xmain"), "main", false},
		{"we are the longer name", status + linear.Marker("main"), "main-2", false},
		{"ours ends in _", status + linear.Marker("main_"), "main", false},
		{"not the last line", linear.Marker("main") + "\n\nsomeone replied below", "main", false},
		{"quoted in the body", "ccc checkpoint · agent: `main` was here\n**Next:** ship", "main", false},
		{"text after the marker", status + linear.Marker("main") + " (old)", "main", false},
		{"empty", "", "main", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linear.HasMarker(tt.body, tt.agent))
		})
	}
}

// Names that share a prefix with another agent, or read the same once
// Linear has normalised the Markdown, never adopt each other's comment,
// however Linear rewrote the marker line.
func TestMarkerNamesDoNotCollide(t *testing.T) {
	names := []string{
		"main", "main 2", "main/2", "main@box", "main:2", "main+2", "main (2)", "main#2",
		"main-2", "main_2", "main2", "main%202", "a b", "a  b", "ma`in", "main ", " main",
	}
	// What Linear may turn the marker line into.
	rewrites := map[string]func(string) string{
		"as written": func(m string) string { return m },
		"html":       func(m string) string { return "<p>" + m + "</p>" },
		"no code":    func(m string) string { return strings.ReplaceAll(m, "`", "") },
		"emphasised": func(m string) string { return "*" + m + "*" },
		"nbsp before": func(m string) string {
			return "ccc checkpoint\u00a0·\u00a0agent: " + m[len("ccc checkpoint · agent: "):]
		},
	}
	for _, writer := range names {
		for how, rewrite := range rewrites {
			body := "## Checkpoint Status\n\n" + rewrite(linear.Marker(writer))
			for _, reader := range names {
				assert.Equal(t, reader == writer, linear.HasMarker(body, reader),
					"comment of %q (%s) read by %q", writer, how, reader)
			}
		}
	}
}
