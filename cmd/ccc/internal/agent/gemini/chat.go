package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// Bounds of what ReadChat keeps while it replays a chat log: the newest
// maxGeminiMessages messages (a message id as a 64-bit hash, never its
// text) and the lists of the newest maxGeminiLists of them. A real session
// holds a few hundred messages; a log of a million unique ids took 200 MB.
const (
	maxGeminiMessages = 10_000
	maxGeminiLists    = 16
)

// ReadChat reads the todo list of a Gemini CLI session from its chat
// log (~/.gemini/tmp/<project>/chats/session-*.jsonl): the arguments of the
// last write_todos call, {"todos":[{"description":…,"status":…}]}, in the
// conversation as Gemini CLI rebuilds it. A later line with a message id
// already seen replaces that message in its place, {"$rewindTo": id} drops
// that message and every later one (all of them when the id is unknown),
// and {"$set":{"messages":[…]}} replaces the whole conversation.
//
// Gemini CLI 0.19–0.38 wrote the chat as one pretty-printed JSON object
// (session-*.json: sessionId, …, messages: […]) rewritten whole: a log
// whose first line is a lone "{" is read that way, whole, when it is at
// most maxWhole bytes (a longer one is an error, not part of it).
//
// Like a Codex rollout, only the last capture.MaxTail bytes are read, and only
// the newest maxGeminiMessages messages are remembered: a rewind to an
// older one, or a list forgotten under maxGeminiLists, is no list rather
// than a wrong one. The file is the agent's, outside the project: never a
// FIFO or a device. ErrNoList: no write_todos call survives; a log in
// neither form is an error (errFormat), not a silent "no list".
func ReadChat(path string) (capture.List, error) {
	f, skipFirst, err := capture.OpenTail(path)
	if err != nil {
		return capture.List{}, err
	}
	defer func() { _ = f.Close() }() // read only
	c := newGeminiChat()
	whole, err := isWholeObject(f)
	switch {
	case err != nil:
		return capture.List{}, fmt.Errorf("%s: %w", path, err)
	case whole:
		err = c.readWhole(f)
	default:
		err = c.readLines(f, skipFirst)
	}
	if err != nil {
		return capture.List{}, fmt.Errorf("%s: %w", path, err)
	}
	if c.lines > 0 && !c.known {
		return capture.List{}, fmt.Errorf("%s: %w", path, errFormat)
	}
	todos, ok := c.last()
	if !ok {
		return capture.List{}, fmt.Errorf("%s: %w", path, capture.ErrNoList)
	}
	return capture.List{Agent: name, Source: path, Tasks: geminiTasks(todos)}, nil
}

// errFormat: the log is neither JSONL records nor a session object.
var errFormat = errors.New("chat log format not recognised (neither Gemini CLI's JSONL records nor its session object): no list captured")

// maxWhole bounds a whole-object chat log (read whole, not from its tail).
var maxWhole int64 = capture.MaxTail

// isWholeObject says whether f holds a pretty-printed object: the first
// line of the file (not of its tail) is a lone "{".
func isWholeObject(f *os.File) (bool, error) {
	var head [64]byte
	n, err := f.ReadAt(head[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	first, _, _ := bytes.Cut(head[:n], []byte("\n"))
	return string(bytes.TrimSpace(first)) == "{", nil
}

func (c *geminiChat) readLines(f *os.File, skipFirst bool) error {
	_, err := capture.EachLine(f, capture.MaxLine, func(line []byte) {
		if skipFirst {
			skipFirst = false
			return
		}
		c.line(line)
	})
	return err
}

// readWhole reads a session object, {"sessionId":…, "messages":[…]}, one
// message at a time.
func (c *geminiChat) readWhole(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > maxWhole {
		return fmt.Errorf("a whole-object chat log of %d bytes is over the %d-byte cap: not read", fi.Size(), maxWhole)
	}
	c.lines = 1
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dec := json.NewDecoder(io.LimitReader(f, maxWhole))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: errFormat
	}
	session := false
	var msgs bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t {
		case "sessionId":
			var id string
			session = dec.Decode(&id) == nil && id != ""
		case "messages":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil
			}
			for dec.More() {
				var m geminiMessage
				if err := dec.Decode(&m); err != nil {
					return fmt.Errorf("message: %w", err)
				}
				if m.ID != "" {
					c.putMessage(m)
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			msgs = true
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	}
	c.known = session && msgs
	return nil
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

// geminiEntry is one remembered message: its id's hash and the last todo
// list it wrote. wrote with a nil todos is a list forgotten to keep
// memory bounded: reached first, it means "no list known".
type geminiEntry struct {
	id    uint64
	wrote bool
	todos []geminiTodo
}

// geminiChat is the newest part of the conversation, in order.
type geminiChat struct {
	seed  maphash.Seed
	msgs  []geminiEntry  // the window, oldest first
	base  int            // the sequence number of msgs[0]
	pos   map[uint64]int // id hash → sequence number, for the window only
	lists int            // entries (older included) whose todos are held
	// older is the newest message with a list that left the window: what
	// the conversation says when no message in the window wrote one.
	older geminiEntry
	// lines counts the non-blank lines read; known says one of them (or
	// the whole object) was in a form Gemini CLI writes.
	lines int
	known bool
}

func newGeminiChat() *geminiChat {
	return &geminiChat{seed: maphash.MakeSeed(), pos: map[uint64]int{}}
}

func (c *geminiChat) hash(id string) uint64 { return maphash.String(c.seed, id) }

func (c *geminiChat) line(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	c.lines++
	if id, ok := plainMessageID(line); ok {
		c.known = true
		c.put(maphash.Bytes(c.seed, id), nil, false) // no list in it: only its place counts
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
	c.known = c.known || rec.RewindTo != nil || rec.ID != nil || len(rec.Set) > 0 || rec.Session != nil
	switch {
	case rec.RewindTo != nil:
		c.rewind(c.hash(*rec.RewindTo))
	case rec.ID != nil:
		var m geminiMessage
		if json.Unmarshal(line, &m) == nil {
			c.putMessage(m)
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
			c.putMessage(m)
		}
	}
}

// putMessage records a message and the last list its write_todos calls
// wrote; a refused call left the list as it was.
func (c *geminiChat) putMessage(m geminiMessage) {
	var todos []geminiTodo
	wrote := false
	for _, tc := range m.ToolCalls {
		if tc.Name != "write_todos" || tc.Status == "error" || tc.Status == "cancelled" {
			continue
		}
		var args struct {
			Todos []geminiTodo `json:"todos"`
		}
		if json.Unmarshal(tc.Args, &args) == nil && args.Todos != nil {
			todos, wrote = args.Todos, true
		}
	}
	c.put(c.hash(m.ID), todos, wrote)
}

// put records a message; one seen before keeps its place. The oldest
// message leaves the window past maxGeminiMessages, the oldest list is
// forgotten past maxGeminiLists.
func (c *geminiChat) put(id uint64, todos []geminiTodo, wrote bool) {
	e := geminiEntry{id: id, wrote: wrote, todos: todos}
	if seq, ok := c.pos[id]; ok {
		c.drop(&c.msgs[seq-c.base])
		c.msgs[seq-c.base] = e
	} else {
		c.pos[id] = c.base + len(c.msgs)
		c.msgs = append(c.msgs, e)
	}
	if todos != nil {
		c.lists++
	}
	if len(c.msgs) > maxGeminiMessages {
		gone := c.msgs[0]
		c.msgs[0] = geminiEntry{} // let its list go with it
		c.msgs = c.msgs[1:]
		c.base++
		delete(c.pos, gone.id)
		if gone.wrote {
			c.drop(&c.older)
			c.older = gone
		}
	}
	for c.lists > maxGeminiLists {
		c.forgetOldestList()
	}
}

// drop stops counting e's list, when it holds one.
func (c *geminiChat) drop(e *geminiEntry) {
	if e.todos != nil {
		c.lists--
	}
}

func (c *geminiChat) forgetOldestList() {
	if c.older.todos != nil {
		c.older.todos = nil
		c.lists--
		return
	}
	for i := range c.msgs {
		if c.msgs[i].todos != nil {
			c.msgs[i].todos = nil
			c.lists--
			return
		}
	}
}

func (c *geminiChat) rewind(id uint64) {
	seq, ok := c.pos[id]
	if !ok {
		c.reset()
		return
	}
	i := seq - c.base
	for j := range c.msgs[i:] {
		gone := &c.msgs[i+j]
		c.drop(gone)
		delete(c.pos, gone.id)
		*gone = geminiEntry{}
	}
	c.msgs = c.msgs[:i]
}

func (c *geminiChat) reset() {
	clear(c.msgs)
	c.msgs = c.msgs[:0]
	c.base = 0
	clear(c.pos)
	c.lists = 0
	c.older = geminiEntry{}
}

// last is the newest list of the conversation; a forgotten one, met first,
// is none.
func (c *geminiChat) last() ([]geminiTodo, bool) {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if e := c.msgs[i]; e.wrote {
			return e.todos, e.todos != nil
		}
	}
	return c.older.todos, c.older.todos != nil
}

// TodosInput reads the list from a hook's tool_input when the tool
// was write_todos ({"todos":[…]}).
func TodosInput(toolInput json.RawMessage) ([]capture.Task, bool) {
	var args struct {
		Todos []geminiTodo `json:"todos"`
	}
	if json.Unmarshal(toolInput, &args) != nil || args.Todos == nil {
		return nil, false
	}
	return geminiTasks(args.Todos), true
}

func geminiTasks(todos []geminiTodo) []capture.Task {
	tasks := make([]capture.Task, 0, len(todos))
	for _, t := range todos {
		text := capture.Clean(t.Description)
		if text == "" {
			continue
		}
		tasks = append(tasks, capture.Task{Text: text, Status: capture.ParseStatus(t.Status)})
	}
	return tasks
}

// plainMessageID is the fast path for most lines: a message record as
// Gemini CLI writes it ({"id":"…", first) that mentions no write_todos
// and none of the special keys. Anything else is parsed in full.
func plainMessageID(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":"`))
	if !ok {
		return nil, false
	}
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	for _, k := range [][]byte{[]byte("write_todos"), []byte(`"$rewindTo"`), []byte(`"$set"`), []byte(`"messages"`)} {
		if bytes.Contains(rest, k) {
			return nil, false
		}
	}
	return rest[:end], true
}
