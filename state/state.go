// Package state is the model of the shared .ccc-state.json: its keys in
// their order, what a newer ccc or CCC wrote there, and ccc's own section
// (the last checkpoint, the sinks' references); loading it falls back to
// the newest valid backup when it is corrupt.
package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// FileName is the state file shared with the CCC plugin's own hooks.
const FileName = ".ccc-state.json"

// State is .ccc-state.json as an ordered JSON object. Keys ccc does not
// know keep their values and their place; ccc reads and writes its own keys
// through the typed accessors.
type State struct {
	keys []string
	vals map[string]json.RawMessage
}

// New returns an empty state.
func New() *State { return &State{vals: map[string]json.RawMessage{}} }

// CorruptError is a state file that cannot be used as JSON.
type CorruptError struct {
	Path      string
	Line, Col int // 1-based; 0 when the error has no position
	Msg       string
	// Copy is where Load kept a copy of the bad file ("" when none was
	// made).
	Copy string
}

func (e *CorruptError) Error() string { return e.Where() + ": " + e.Msg }

// Where is the error's position as path:line:col (just the path when the
// error has no position).
func (e *CorruptError) Where() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", e.Path, e.Line, e.Col)
	}
	return e.Path
}

// MaxSize is the largest state file ccc reads. CCC's loop state and ccc's
// references take a few kilobytes; decoding a 100 MB file took 830 MB, so a
// bigger one is reported like a corrupt one: never parsed, never overwritten.
const MaxSize = 1 << 20

// Parse reads a state file's bytes. Anything but one JSON object, or more
// than MaxSize bytes, is a *CorruptError (with Path left empty for the
// caller to fill).
func Parse(data []byte) (*State, error) {
	if len(data) > MaxSize {
		return nil, tooBig(int64(len(data)))
	}
	st := New()
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &CorruptError{Msg: "empty file, expected a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error) error {
		ce := &CorruptError{Msg: err.Error()}
		var se *json.SyntaxError
		// The streaming decoder's offsets are not absolute; a whole-document
		// decode gives the position of the offending byte.
		var v any
		if errors.As(json.Unmarshal(data, &v), &se) {
			ce.Msg = se.Error()
			off := se.Offset - 1
			if se.Offset >= int64(len(data)) {
				off = int64(len(data)) // ran out: point past the end
			}
			ce.Line, ce.Col = projectfs.Position(data, off)
			return ce
		}
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			ce.Msg = "unexpected end of JSON input"
			ce.Line, ce.Col = projectfs.Position(data, int64(len(data)))
		default:
			ce.Line, ce.Col = projectfs.Position(data, dec.InputOffset())
		}
		return ce
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(fmt.Errorf("expected a JSON object, found %v", describe(tok)))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fail(fmt.Errorf("expected an object key"))
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(err)
		}
		st.put(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the JSON object")
		}
		return nil, fail(err)
	}
	return st, nil
}

func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return string(t)
	case string:
		return "a string"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%v", t)
	}
}

func (s *State) put(key string, raw json.RawMessage) {
	if _, ok := s.vals[key]; !ok {
		s.keys = append(s.keys, key)
	}
	s.vals[key] = raw
}

// Keys lists the state's keys in file order.
func (s *State) Keys() []string { return append([]string(nil), s.keys...) }

// Has reports whether key is present (even when null).
func (s *State) Has(key string) bool { _, ok := s.vals[key]; return ok }

// Raw returns key's JSON value as written.
func (s *State) Raw(key string) (json.RawMessage, bool) {
	v, ok := s.vals[key]
	return v, ok
}

// Get decodes key into v. It reports false when the key is absent or null.
func (s *State) Get(key string, v any) (bool, error) {
	raw, ok := s.vals[key]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("state: %s: %w", key, err)
	}
	return true, nil
}

// Set stores v under key, keeping the key's place when it exists.
func (s *State) Set(key string, v any) error {
	raw, err := marshal(v)
	if err != nil {
		return fmt.Errorf("state: %s: %w", key, err)
	}
	s.put(key, raw)
	return nil
}

// Delete removes key.
func (s *State) Delete(key string) {
	if _, ok := s.vals[key]; !ok {
		return
	}
	delete(s.vals, key)
	for i, k := range s.keys {
		if k == key {
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			break
		}
	}
}

// String returns a string key's value; a missing or non-string value is "".
func (s *State) String(key string) string {
	var v string
	if _, err := s.Get(key, &v); err != nil {
		return ""
	}
	return v
}

// Int returns an integer key's value and whether it held one.
func (s *State) Int(key string) (int, bool) {
	var v int
	ok, err := s.Get(key, &v)
	return v, ok && err == nil
}

// Marshal renders the state as CCC's hooks write it (jq's two-space
// indentation), keys in their original order.
func (s *State) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, k := range s.keys {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n  ")
		kb, err := marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteString(": ")
		if err := json.Indent(&buf, s.vals[k], "  ", "  "); err != nil {
			return nil, fmt.Errorf("state: %s: %w", k, err)
		}
	}
	if len(s.keys) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// Issue is the tracked issue: linearIssue, or CCC's older activeIssue.
func (s *State) Issue() string {
	if v := s.String("linearIssue"); v != "" {
		return v
	}
	return s.String("activeIssue")
}

// SetIssue writes linearIssue, and activeIssue too when the file has that
// older key: CCC's hooks that still read it must not go on with the old
// issue.
func (s *State) SetIssue(key string) error {
	if s.Has("activeIssue") {
		if err := s.Set("activeIssue", key); err != nil {
			return err
		}
	}
	return s.Set("linearIssue", key)
}

// TimeLayout is how CCC's hooks write createdAt and lastUpdatedAt: RFC 3339
// in UTC, to the second.
const TimeLayout = "2006-01-02T15:04:05Z"

// Touch stamps lastUpdatedAt with now, and createdAt as well when the file
// is being created.
func (s *State) Touch(now time.Time, creating bool) error {
	stamp := now.UTC().Format(TimeLayout)
	if creating && !s.Has("createdAt") {
		if err := s.Set("createdAt", stamp); err != nil {
			return err
		}
	}
	return s.Set("lastUpdatedAt", stamp)
}

// ActiveTaskFiles lists the files the agent declared in scope.
func (s *State) ActiveTaskFiles() []string {
	var files []string
	if _, err := s.Get("activeTaskFiles", &files); err != nil {
		return nil
	}
	return files
}

// Loaded is a state file as found on disk.
type Loaded struct {
	State *State
	// Corrupt is set when the file on disk could not be parsed; the file is
	// then never overwritten, and State came from From.
	Corrupt *CorruptError
	// SetAside is where a copy of the corrupt file was kept.
	SetAside string
	// From names the newest valid backup the state was taken from, or ""
	// when no backup was usable (State is then empty).
	From string
}

// tooBig is the CorruptError of a state file over MaxSize.
func tooBig(size int64) *CorruptError {
	return &CorruptError{Msg: fmt.Sprintf("%d bytes, over the %d KB a state file may hold; not read", size, MaxSize>>10)}
}

// Path is the state file of a project root.
func Path(root string) string { return filepath.Join(root, FileName) }

// Load reads root's state file. A missing file is an empty state. A corrupt
// file is reported in Loaded.Corrupt (not as an error), copied aside, and
// replaced in memory by the newest backup that parses, so callers go on.
func Load(root string, now time.Time) (Loaded, error) {
	path := Path(root)
	var data []byte
	fi, err := os.Stat(path)
	if err == nil && fi.Size() > MaxSize {
		err = tooBig(fi.Size()) // not read at all
	} else {
		data, err = projectfs.ReadProjectFile(root, path, MaxSize)
	}
	if os.IsNotExist(err) {
		return Loaded{State: New()}, nil
	}
	var ce *CorruptError
	if err != nil && !errors.As(err, &ce) {
		return Loaded{}, fmt.Errorf("state: %w", err)
	}
	if ce == nil {
		st, perr := Parse(data)
		if perr == nil {
			return Loaded{State: st}, nil
		}
		ce = perr.(*CorruptError)
	}
	l := Loaded{State: New()}
	l.Corrupt = ce
	l.Corrupt.Path = path
	// A file too big to read stays where it is, untouched: a copy would only
	// double it.
	if data != nil {
		if l.SetAside, err = projectfs.SetAside(root, path, now); err != nil {
			return l, fmt.Errorf("state: %w", err)
		}
		l.Corrupt.Copy = l.SetAside
	}
	backups, err := projectfs.Backups(root, FileName)
	if err != nil {
		return l, fmt.Errorf("state: %w", err)
	}
	for _, b := range backups {
		data, err := projectfs.ReadProjectFile(root, b, MaxSize)
		if err != nil {
			continue
		}
		if st, err := Parse(data); err == nil {
			l.State, l.From = st, b
			break
		}
	}
	return l, nil
}

// Save backs up the current state file and replaces it atomically. It
// refuses to overwrite a file that is not valid JSON. Callers hold Lock.
func Save(root string, st *State, now time.Time) error {
	_, err := SaveOver(root, st, now, nil)
	return err
}

// SaveOver is Save for a caller that may have written the file itself
// earlier in the same run: ours is what that save returned (nil: none).
// When the file still holds exactly ours, it is replaced without a backup:
// the version before it was backed up by that save, and this one was never
// anyone's but this run's (a checkpoint saves the state, then saves it
// again to remember the tracker comment it wrote; that second backup read
// every same-size backup and wrote a copy that replaced the run's first
// one, a sixth of a tracker checkpoint's CPU — issue 26). Whatever another
// writer put there meanwhile differs from ours and is backed up as Save
// does. It returns the bytes it wrote.
func SaveOver(root string, st *State, now time.Time, ours []byte) ([]byte, error) {
	return save(root, st, now, ours, projectfs.WriteFileAtomic)
}

// SaveBookkeeping is SaveOver for a change the next run redoes when a crash
// loses it (a tracker comment's reference: without it the next run finds
// the comment by its marker, never posts a second): the file is complete
// before it is renamed into place, so a crash leaves this version or the
// one before, but the directory is not fsynced for it (issue 26).
func SaveBookkeeping(root string, st *State, now time.Time, ours []byte) ([]byte, error) {
	return save(root, st, now, ours, projectfs.WriteFileAtomicDirLater)
}

func save(root string, st *State, now time.Time, ours []byte, write func(string, []byte, os.FileMode) error) ([]byte, error) {
	path := Path(root)
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxSize {
		ce := tooBig(fi.Size())
		ce.Path = path
		return nil, fmt.Errorf("state: refusing to overwrite: %w", ce)
	}
	old, err := projectfs.ReadProjectFile(root, path, MaxSize)
	switch {
	case err != nil && !os.IsNotExist(err):
		return nil, fmt.Errorf("state: refusing to overwrite: %w", err)
	case err == nil:
		if _, perr := Parse(old); perr != nil {
			ce := perr.(*CorruptError)
			ce.Path = path
			return nil, fmt.Errorf("state: refusing to overwrite: %w", ce)
		}
	}
	data, err := st.Marshal()
	if err != nil {
		return nil, err
	}
	if ours == nil || !bytes.Equal(old, ours) {
		if _, err := projectfs.Backup(root, path, now); err != nil {
			return nil, fmt.Errorf("state: %w", err)
		}
	}
	if err := write(path, data, 0o644); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	return data, nil
}
