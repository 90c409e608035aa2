package markdown

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

func TestCloseOpen(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"closed", "text\n\n```\ncode\n```", "text\n\n```\ncode\n```"},
		{"open fence", "```sh\nmake", "```sh\nmake\n```"},
		{"open fence, final newline", "~~~~\nlog\n", "~~~~\nlog\n~~~~"},
		{"open comment", "note <!-- x\n\n<!-- draft\nmore", "note <!-- x\n\n<!-- draft\nmore\n-->"},
		{"fence holding a comment opener", "```\n<!--", "```\n<!--\n```"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CloseOpen(tt.src)
			assert.Equal(t, tt.want, got)
			marked := testutil.Blocks(got + "\n\n<!-- marker -->")
			assert.Equal(t, "HTMLBlock: <!-- marker -->", marked[len(marked)-1], "what follows is a block of its own")
		})
	}
}
