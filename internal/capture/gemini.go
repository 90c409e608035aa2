package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// ReadGemini reads the todo list of a Gemini CLI session from its chat
// log (~/.gemini/tmp/<project>/chats/session-*.jsonl): the arguments of the
// last write_todos call, {"todos":[{"description":…,"status":…}]}, in the
// conversation as Gemini CLI rebuilds it. A later line with a message id
// already seen replaces that message in its place, {"$rewindTo": id} drops
// that message and every later one (all of them when the id is unknown),
// and {"$set":{"messages":[…]}} replaces the whole conversation.
// ErrNoList: no write_todos call survives.
func ReadGemini(path string) (List, error) {
	f, err := os.Open(path)
	if err != nil {
		return List{}, err
	}
	defer func() { _ = f.Close() }() // read only
	c := newGeminiChat()
	if _, err := eachLine(f, MaxLine, c.line); err != nil {
		return List{}, fmt.Errorf("%s: %w", path, err)
	}
	todos, ok := c.last()
	if !ok {
		return List{}, fmt.Errorf("%s: %w", path, ErrNoList)
	}
	return List{Agent: "gemini", Source: path, Tasks: geminiTasks(todos)}, nil
}

type geminiTodo struct {
	Description string `json:"description"`
	Status      string `json:"status"`
}

type geminiMessage struct {
	ID        string `json:"id"`
	ToolCalls []struct {
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
}

// geminiChat is the conversation in order: only the ids and, per message,
// the last todo list it wrote.
type geminiChat struct {
	order []string
	pos   map[string]int
	todos map[string][]geminiTodo
}

func newGeminiChat() *geminiChat {
	return &geminiChat{pos: map[string]int{}, todos: map[string][]geminiTodo{}}
}

func (c *geminiChat) line(line []byte) {
	if id, ok := plainMessageID(line); ok {
		c.put(geminiMessage{ID: id}) // no list in it: only its place counts
		return
	}
	var rec struct {
		ID       *string         `json:"id"`
		RewindTo *string         `json:"$rewindTo"`
		Set      json.RawMessage `json:"$set"`
		Session  *string         `json:"sessionId"`
		Project  *string         `json:"projectHash"`
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return // Gemini CLI skips a line it cannot parse, too
	}
	switch {
	case rec.RewindTo != nil:
		c.rewind(*rec.RewindTo)
	case rec.ID != nil:
		var m geminiMessage
		if json.Unmarshal(line, &m) == nil {
			c.put(m)
		}
	case len(rec.Set) > 0:
		var set struct {
			Messages []geminiMessage `json:"messages"`
		}
		if json.Unmarshal(rec.Set, &set) == nil && set.Messages != nil {
			c.reset()
			c.putAll(set.Messages)
		}
	case rec.Session != nil && rec.Project != nil && len(rec.Messages) > 0:
		var ms []geminiMessage
		if json.Unmarshal(rec.Messages, &ms) == nil {
			c.putAll(ms)
		}
	}
}

func (c *geminiChat) putAll(ms []geminiMessage) {
	for _, m := range ms {
		if m.ID != "" {
			c.put(m)
		}
	}
}

// put records a message; one seen before keeps its place.
func (c *geminiChat) put(m geminiMessage) {
	if _, ok := c.pos[m.ID]; !ok {
		c.pos[m.ID] = len(c.order)
		c.order = append(c.order, m.ID)
	}
	delete(c.todos, m.ID)
	for _, tc := range m.ToolCalls {
		if tc.Name != "write_todos" || tc.Status == "error" || tc.Status == "cancelled" {
			continue // a refused call left the list as it was
		}
		var args struct {
			Todos []geminiTodo `json:"todos"`
		}
		if json.Unmarshal(tc.Args, &args) == nil && args.Todos != nil {
			c.todos[m.ID] = args.Todos
		}
	}
}

func (c *geminiChat) rewind(id string) {
	i, ok := c.pos[id]
	if !ok {
		c.reset()
		return
	}
	for _, gone := range c.order[i:] {
		delete(c.pos, gone)
		delete(c.todos, gone)
	}
	c.order = c.order[:i]
}

func (c *geminiChat) reset() {
	c.order = c.order[:0]
	clear(c.pos)
	clear(c.todos)
}

func (c *geminiChat) last() ([]geminiTodo, bool) {
	for i := len(c.order) - 1; i >= 0; i-- {
		if t, ok := c.todos[c.order[i]]; ok {
			return t, true
		}
	}
	return nil, false
}

// GeminiTodosInput reads the list from a hook's tool_input when the tool
// was write_todos ({"todos":[…]}).
func GeminiTodosInput(toolInput json.RawMessage) ([]Task, bool) {
	var args struct {
		Todos []geminiTodo `json:"todos"`
	}
	if json.Unmarshal(toolInput, &args) != nil || args.Todos == nil {
		return nil, false
	}
	return geminiTasks(args.Todos), true
}

func geminiTasks(todos []geminiTodo) []Task {
	tasks := make([]Task, 0, len(todos))
	for i, t := range todos {
		text := Clean(t.Description)
		if text == "" {
			continue
		}
		tasks = append(tasks, Task{ID: "todo-" + strconv.Itoa(i+1), Text: text, Status: status(t.Status)})
	}
	return tasks
}

// plainMessageID is the fast path for most lines: a message record as
// Gemini CLI writes it ({"id":"…", first) that mentions no write_todos
// and none of the special keys. Anything else is parsed in full.
func plainMessageID(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":"`))
	if !ok {
		return "", false
	}
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	for _, k := range [][]byte{[]byte("write_todos"), []byte(`"$rewindTo"`), []byte(`"$set"`), []byte(`"messages"`)} {
		if bytes.Contains(rest, k) {
			return "", false
		}
	}
	return string(rest[:end]), true
}
