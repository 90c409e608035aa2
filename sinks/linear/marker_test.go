package linear_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

func TestMarker(t *testing.T) {
	assert.Equal(t, "ccc checkpoint · agent: `main`", linear.Marker("main"))
	assert.Equal(t, "ccc checkpoint · agent: `odd name`", linear.Marker(" odd`\nname "), "one line, no code-span breakers")
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
		{"emphasised", status + "_ccc checkpoint · agent: `main`_", "main", true},
		{"nbsp and doubled spaces", status + "ccc checkpoint\u00a0·  agent: `main`", "main", true},
		{"other agent with our prefix", status + linear.Marker("main-2"), "main", false},
		{"other agent dotted", status + linear.Marker("main.2"), "main", false},
		{"other agent suffix", status + linear.Marker("xmain"), "main", false},
		{"we are the longer name", status + linear.Marker("main"), "main-2", false},
		{"not the last line", linear.Marker("main") + "\n\nsomeone replied below", "main", false},
		{"quoted in the body", "ccc checkpoint · agent: `main` was here\n**Next:** ship", "main", false},
		{"empty", "", "main", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, linear.HasMarker(tt.body, tt.agent))
		})
	}
}
