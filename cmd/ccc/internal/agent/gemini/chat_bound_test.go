package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// A chat log of many messages, each with its own id, some ids huge, keeps
// a bounded state: ids are not held as text, and only the newest messages
// are remembered (a 104 MB log took 120-200 MB of memory).
func TestGeminiChatMemoryIsBounded(t *testing.T) {
	c := newGeminiChat()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	huge := strings.Repeat("x", 1<<20)
	for i := range 16 {
		c.line([]byte(fmt.Sprintf(`{"id":"%s%d","type":"user","content":"ok"}`, huge, i)))
	}
	for i := range 200_000 {
		c.line([]byte(fmt.Sprintf(`{"id":"%08x-0000-4000-8000-%012x","type":"user","content":"ok"}`, i, i)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, held, int64(4<<20), "the chat holds %d bytes", held)
	runtime.KeepAlive(c)
}

// The window: past maxGeminiMessages the oldest messages are forgotten
// (their ids too), the newest list that left the window still counts, and
// a rewind to a forgotten message, or a list forgotten under
// maxGeminiLists, is no list rather than a wrong one.
func TestGeminiChatWindow(t *testing.T) {
	msg := func(i int) []byte { return []byte(fmt.Sprintf(`{"id":"m%d","type":"user","content":"ok"}`, i)) }
	list := func(id, text string) []byte {
		return []byte(`{"id":"` + id + `","type":"gemini","toolCalls":[{"name":"write_todos","args":{"todos":[{"description":"` + text + `","status":"pending"}]},"status":"success"}]}`)
	}
	fill := func(c *geminiChat, n int) {
		for i := range n {
			c.line(msg(i))
		}
	}

	c := newGeminiChat()
	c.line(list("early", "Lex"))
	fill(c, 3*maxGeminiMessages)
	assert.LessOrEqual(t, len(c.pos), maxGeminiMessages)
	assert.LessOrEqual(t, len(c.msgs), maxGeminiMessages)
	todos, ok := c.last()
	assert.True(t, ok)
	assert.Equal(t, []geminiTodo{{Description: "Lex", Status: "pending"}}, todos)

	c.line([]byte(`{"$rewindTo":"m5"}`)) // m5 left the window: what stays is not known
	_, ok = c.last()
	assert.False(t, ok)

	c = newGeminiChat()
	for i := range maxGeminiLists + 5 {
		c.line(list(fmt.Sprint("l", i), fmt.Sprint("list ", i)))
	}
	assert.LessOrEqual(t, c.lists, maxGeminiLists)
	todos, ok = c.last()
	assert.True(t, ok)
	assert.Equal(t, fmt.Sprint("list ", maxGeminiLists+4), todos[0].Description)
	c.line([]byte(`{"$rewindTo":"l10"}`))
	todos, ok = c.last()
	assert.True(t, ok)
	assert.Equal(t, "list 9", todos[0].Description)
	c.line([]byte(`{"$rewindTo":"l5"}`)) // back past the lists kept: l0..l4 were forgotten
	_, ok = c.last()
	assert.False(t, ok)
	c.line(list("new", "Parse"))
	todos, ok = c.last()
	assert.True(t, ok)
	assert.Equal(t, "Parse", todos[0].Description)
}

// Only the last capture.MaxTail bytes of a chat log are read, as for a Codex
// rollout: a list further back is not reached, one in the tail is, and the
// line cut by the tail's start is not parsed.
func TestReadChatReadsTheTail(t *testing.T) {
	head := `{"id":"early","type":"gemini","toolCalls":[{"name":"write_todos","args":{"todos":[{"description":"Lex","status":"pending"}]},"status":"success"}]}` + "\n"
	pad := `{"id":"pad","type":"gemini","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	var b strings.Builder
	b.WriteString(head)
	for b.Len() < capture.MaxTail+2<<20 {
		b.WriteString(pad)
	}
	p := filepath.Join(t.TempDir(), "session-long.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	_, err := ReadChat(p)
	assert.ErrorIs(t, err, capture.ErrNoList)

	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(strings.Replace(head, "Lex", "Parse", 1))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	l, err := ReadChat(p)
	require.NoError(t, err)
	assert.Equal(t, []capture.Task{{Text: "Parse", Status: "pending"}}, l.Tasks)
}
