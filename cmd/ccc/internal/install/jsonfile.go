package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// maxConfig bounds a settings file ccc edits.
const maxConfig = 4 << 20

// member is one key of a JSON object, its value as written.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object that keeps its keys in order, so that an edit
// shows as an edit and the user's file keeps its layout of keys.
type object []member

func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	for i, m := range *o {
		if m.Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// addHooks adds each hook to the "hooks" object of a settings file, as a
// matcher group of its own at the end of its event, unless a handler of
// that event already runs the same ccc hook (whatever its timeout: the
// user may have changed it). Nothing else in the file changes.
func addHooks(data []byte, hooks []Hook, group func(Hook) any) (out []byte, added []string, err error) {
	root := object{}
	if len(bytes.TrimSpace(data)) > 0 {
		if root, err = parseObject(data); err != nil {
			return nil, nil, err
		}
	}
	events := object{}
	if raw, ok := root.get("hooks"); ok {
		if events, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf(`"hooks": %w`, err)
		}
	}
	for _, h := range hooks {
		var groups []json.RawMessage
		if raw, ok := events.get(h.Event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, nil, &notListError{h.Event, err}
			}
		}
		if hasCommand(groups, h.Command) {
			continue
		}
		g, err := marshal(group(h))
		if err != nil {
			return nil, nil, err
		}
		groups = append(groups, g)
		list, err := marshal(groups)
		if err != nil {
			return nil, nil, err
		}
		events.set(h.Event, list)
		added = append(added, h.Event)
	}
	if len(added) == 0 {
		return data, nil, nil
	}
	ev, err := marshal(events)
	if err != nil {
		return nil, nil, err
	}
	root.set("hooks", ev)
	out, err = render(root)
	return out, added, err
}

// render writes a settings object two-space indented, keys in their order,
// with a final newline.
func render(o object) ([]byte, error) {
	flat, err := marshal(o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, flat, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// hasCommand reports whether a handler of groups runs command: the same
// ccc hook, whatever path or flags order the user gave ccc.
func hasCommand(groups []json.RawMessage, command string) bool {
	for _, g := range groups {
		var mg struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &mg) != nil {
			continue
		}
		for _, h := range mg.Hooks {
			if sameCommand(h.Command, command) {
				return true
			}
		}
	}
	return false
}

// writeConfig computes the edit of the file at path and, unless dryRun,
// writes it atomically; nothing says what the result's note is when the
// edit changes nothing.
func writeConfig(path string, dryRun bool, nothing string, edit func([]byte) ([]byte, []string, error)) (Result, error) {
	res := Result{Path: path}
	data, err := projectfs.ReadProjectFile("", path, maxConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	out, changed, err := edit(data)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if len(changed) == 0 {
		res.Notes = append(res.Notes, nothing+" "+path)
		return res, nil
	}
	res.Changed = true
	res.Diff = unifiedDiff(path, data, out)
	if dryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, err
	}
	return res, projectfs.WriteFileAtomic(path, out, 0o644)
}

// marshal is json.Marshal without escaping <, > and &: a user's command
// "make && ccc" stays as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// notListError is an event whose value is not a list of groups.
type notListError struct {
	event string
	err   error
}

func (e *notListError) Error() string {
	return fmt.Sprintf(`"hooks"."%s" is not a list: %v`, e.event, e.err)
}

func (e *notListError) Unwrap() error { return e.err }
