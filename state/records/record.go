// Package records keeps the per-agent checkpoint records that let a
// supervisor of parallel agents see who is working on what: one JSON file
// per agent under the repository's shared .ccc/checkpoints directory, its
// history, the heartbeat that tells a live agent from a crashed one, the
// takeover of a crashed agent's work and the cleanup policy. It is the union
// of what the neighbouring checkpoint protocols (seeds 001–003) keep.
package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// SchemaVersion is the version of the record format this package writes.
const SchemaVersion = 1

// Record statuses.
const (
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusComplete   = "complete"
	StatusFailed     = "failed"
)

// ValidStatus reports whether s is one of the four record statuses.
func ValidStatus(s string) bool {
	switch s {
	case StatusInProgress, StatusBlocked, StatusComplete, StatusFailed:
		return true
	}
	return false
}

// Record is one agent's checkpoint record. Every key is always written (null
// for an unset time) so a reader never has to tell a missing key from an
// empty one.
type Record struct {
	SchemaVersion  int      `json:"schemaVersion"`
	ID             string   `json:"id"`
	Agent          string   `json:"agent"`
	SessionID      string   `json:"sessionId"`
	Issue          string   `json:"issue"`
	Status         string   `json:"status"`
	Phase          string   `json:"phase"`
	CurrentStep    string   `json:"currentStep"`
	CompletedSteps []string `json:"completedSteps"`
	NextSteps      []string `json:"nextSteps"`
	Subtasks       Subtasks `json:"subtasks"`
	FilesCreated   []string `json:"filesCreated"`
	FilesModified  []string `json:"filesModified"`
	Errors         []Error  `json:"errors"`
	// AcceptanceCriteriaMet maps a criterion to whether it is met.
	AcceptanceCriteriaMet map[string]bool `json:"acceptanceCriteriaMet"`
	// ResumeInstructions is the continuation prompt.
	ResumeInstructions     string    `json:"resumeInstructions"`
	CreatedAt              time.Time `json:"createdAt"`
	UpdatedAt              time.Time `json:"updatedAt"`
	CompletedAt            time.Time `json:"completedAt"`
	Heartbeat              Beat      `json:"heartbeat"`
	NextCheckpointExpected time.Time `json:"nextCheckpointExpected"`
	Branch                 string    `json:"branch"`
	Head                   string    `json:"head"`
	// Extra holds fields imported from elsewhere (and keys of a record this
	// version does not know), under their original names.
	Extra map[string]json.RawMessage `json:"extra"`
}

// Subtasks counts the work items of a record.
type Subtasks struct {
	Total     int       `json:"total"`
	Completed int       `json:"completed"`
	Failed    int       `json:"failed"`
	Percent   int       `json:"percent"`
	Items     []Subtask `json:"items"`
}

// Subtask is one work item; Output is what it produced (null when nothing).
type Subtask struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Output *string `json:"output"`
}

// Error is a problem the agent met; a blocking one stops its work.
type Error struct {
	Type      string    `json:"type"`
	Message   string    `json:"message"`
	Timestamp time.Time `json:"timestamp"`
	Blocking  bool      `json:"blocking"`
}

// Beat is the record's heartbeat: the agent's liveness signal.
type Beat struct {
	LastBeat        time.Time `json:"lastBeat"`
	IntervalSeconds int       `json:"intervalSeconds"`
}

// nullTime makes an unset time null rather than year 1.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// MarshalJSON writes the keys in the order of the format (Record's fields
// and tags), unset times as null, and empty lists and maps as [] and {}.
func (r Record) MarshalJSON() ([]byte, error) {
	r.Subtasks.Items = nonNil(r.Subtasks.Items)
	v := reflect.ValueOf(r)
	buf := []byte{'{'}
	for i := range v.NumField() {
		f := v.Field(i)
		val := f.Interface()
		switch {
		case f.Type() == timeType:
			val = nullTime(f.Interface().(time.Time))
		case f.Kind() == reflect.Slice && f.IsNil():
			val = []struct{}{}
		case f.Kind() == reflect.Map && f.IsNil():
			val = struct{}{}
		}
		key, err := marshal(jsonKey(v.Type().Field(i)))
		if err != nil {
			return nil, err
		}
		b, err := marshal(val)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(append(append(buf, key...), ':'), b...)
	}
	return append(buf, '}'), nil
}

var timeType = reflect.TypeFor[time.Time]()

// jsonKey is a field's key in the record format.
func jsonKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// MarshalJSON writes an unset time as null.
func (h Beat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		LastBeat        *time.Time `json:"lastBeat"`
		IntervalSeconds int        `json:"intervalSeconds"`
	}{nullTime(h.LastBeat), h.IntervalSeconds})
}

// MarshalJSON writes an unset time as null.
func (e Error) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		Type      string     `json:"type"`
		Message   string     `json:"message"`
		Timestamp *time.Time `json:"timestamp"`
		Blocking  bool       `json:"blocking"`
	}{e.Type, e.Message, nullTime(e.Timestamp), e.Blocking})
}

// marshal is json.Marshal without escaping <, > and &, which prompts and
// messages are full of.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// LastActivity is the later of the last checkpoint and the last heartbeat:
// the last time the agent was known to be alive.
func (r *Record) LastActivity() time.Time {
	if r.Heartbeat.LastBeat.After(r.UpdatedAt) {
		return r.Heartbeat.LastBeat
	}
	return r.UpdatedAt
}

// Terminal reports whether the record's work is over (complete or failed),
// so liveness no longer applies to it.
func (r *Record) Terminal() bool {
	return r.Status == StatusComplete || r.Status == StatusFailed
}

// Encode renders the record as ccc writes it: indented, one trailing newline. It writes what a
// json.Encoder indenting by two spaces writes of MarshalJSON's output (encodeReflect in the
// tests; TestEncodeAgrees), without its two passes over the whole text (compact, then indent):
// the lists of steps and subtasks, a record's bulk, are written directly, each other value
// through marshal and json.Indent (issue 26: most of a 10,000-task record's cost).
func Encode(r *Record) ([]byte, error) {
	// Never write a record that no reader would read back (a progress file
	// of some 20,000 tasks or more: every task is in the record twice);
	// known without encoding it when its lists alone are over the limit.
	if n := listsSize(r); n > projectfs.MaxRecordSize {
		return nil, tooLarge(r, n, true)
	}
	out, err := encode(r)
	if err != nil {
		return nil, fmt.Errorf("records: encode %s: %w", r.Agent, err)
	}
	if len(out) > projectfs.MaxRecordSize {
		return nil, tooLarge(r, len(out), false)
	}
	return out, nil
}

// tooLarge is Encode's error for a record of size bytes, or of more.
func tooLarge(r *Record, size int, atLeast bool) error {
	more := ""
	if atLeast {
		more = "at least "
	}
	return fmt.Errorf("records: the record of %s would be %s%.1f MB, and a record may hold %d MB (the progress file keeps every task)",
		r.Agent, more, float64(size)/(1<<20), projectfs.MaxRecordSize>>20)
}

// listsSize is at most what r's task lists take encoded: each step is
// written with its indent, quotes, comma and newline (8 bytes more, escapes
// only add), each subtask as an object of three members (some 84 more).
func listsSize(r *Record) int {
	size := len(r.ResumeInstructions)
	for _, l := range [][]string{r.CompletedSteps, r.NextSteps} {
		for _, s := range l {
			size += len(s) + 8
		}
	}
	for _, it := range r.Subtasks.Items {
		size += len(it.ID) + len(it.Status) + 80
	}
	return size
}

func encode(r *Record) ([]byte, error) {
	v := reflect.ValueOf(*r)
	buf := bytes.NewBuffer(make([]byte, 0, 1024+listsSize(r)))
	buf.WriteString("{\n")
	for i := range v.NumField() {
		f := v.Field(i)
		buf.WriteString(`  "`)
		buf.WriteString(jsonKey(v.Type().Field(i)))
		buf.WriteString(`": `)
		switch val := f.Interface().(type) {
		case []string:
			writeStrings(buf, val, "  ")
		case Subtasks:
			writeSubtasks(buf, val)
		default:
			b, err := marshal(fieldValue(f))
			if err != nil {
				return nil, err
			}
			if err := json.Indent(buf, b, "  ", "  "); err != nil {
				return nil, err
			}
		}
		if i < v.NumField()-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// fieldValue is what MarshalJSON writes for a field: an unset time as null, a nil list or map
// as an empty one.
func fieldValue(f reflect.Value) any {
	switch {
	case f.Type() == timeType:
		return nullTime(f.Interface().(time.Time))
	case f.Kind() == reflect.Slice && f.IsNil():
		return []struct{}{}
	case f.Kind() == reflect.Map && f.IsNil():
		return struct{}{}
	}
	return f.Interface()
}

// writeStrings writes a list of strings as an indented JSON array whose closing bracket is
// indented by in.
func writeStrings(buf *bytes.Buffer, l []string, in string) {
	if len(l) == 0 {
		buf.WriteString("[]")
		return
	}
	buf.WriteString("[\n")
	for i, s := range l {
		buf.WriteString(in)
		buf.WriteString("  ")
		writeString(buf, s)
		if i < len(l)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(in)
	buf.WriteByte(']')
}

// writeSubtasks writes the subtasks as a field of the record. TestEncodeAgrees fails when a
// field is added to Subtasks or Subtask and not here.
func writeSubtasks(buf *bytes.Buffer, st Subtasks) {
	fmt.Fprintf(buf, "{\n    \"total\": %d,\n    \"completed\": %d,\n    \"failed\": %d,\n    \"percent\": %d,\n    \"items\": ",
		st.Total, st.Completed, st.Failed, st.Percent)
	if len(st.Items) == 0 {
		buf.WriteString("[]")
	} else {
		buf.WriteString("[\n")
		for i, it := range st.Items {
			buf.WriteString("      {\n        \"id\": ")
			writeString(buf, it.ID)
			buf.WriteString(",\n        \"status\": ")
			writeString(buf, it.Status)
			buf.WriteString(",\n        \"output\": ")
			if it.Output == nil {
				buf.WriteString("null")
			} else {
				writeString(buf, *it.Output)
			}
			buf.WriteString("\n      }")
			if i < len(st.Items)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString("    ]")
	}
	buf.WriteString("\n  }")
}

// writeString writes s as marshal does: as it is between quotes when nothing in it needs an
// escape (no quote, backslash or control character, valid UTF-8 without U+2028 or U+2029),
// else through marshal.
func writeString(buf *bytes.Buffer, s string) {
	plain, ascii := true, true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\'
		ascii = ascii && c < utf8.RuneSelf
	}
	if plain && !ascii {
		plain = utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
	}
	if plain {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	b, _ := marshal(s) // a string always marshals
	buf.Write(b)
}

// ErrSchema is a record of a schemaVersion this ccc cannot read: newer than
// SchemaVersion, or older without a migration.
var ErrSchema = errors.New("unsupported schemaVersion")

// CorruptError is a record file that cannot be read as a record.
type CorruptError struct {
	Path string
	Msg  string
}

func (e *CorruptError) Error() string { return fmt.Sprintf("records: %s: %s", e.Path, e.Msg) }

// migrations turn a record of version N (the key) into version N+1. A
// version with no entry cannot be migrated and is refused.
var migrations = map[int]func(map[string]json.RawMessage) error{
	// Version 0 is a record without schemaVersion: one an agent wrote by
	// hand, following the format, before ccc stamped versions. Its keys are
	// version 1's; those it does not know end up in extra.
	0: func(map[string]json.RawMessage) error { return nil },
}

// knownKeys are the top-level keys of a version-1 record (built on first
// use, not at package init).
var knownKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[Record]()
	for i := range t.NumField() {
		keys[jsonKey(t.Field(i))] = true
	}
	return keys
})

// Decode reads a record file's bytes (path is for messages). A record of an
// older schemaVersion is migrated and from reports the version it had; a
// newer one, or one that does not match the format (a wrong type, an
// unknown nested field, a missing agent or an unknown status), is refused:
// a record is never silently misread. Unknown top-level keys are kept in
// Extra.
func Decode(path string, data []byte) (r *Record, from int, err error) {
	return decode(path, data, false)
}

// decodeSummary is Decode for Collect: it takes and refuses what Decode
// does, with the same errors, but a record ccc wrote comes back with only
// summaryKeys' fields set (the subtasks' counts without their items). A
// summary never leaves this package.
func decodeSummary(path string, data []byte) (*Record, error) {
	r, _, err := decode(path, data, true)
	return r, err
}

func decode(path string, data []byte, summary bool) (r *Record, from int, err error) {
	// A record of this version with only the keys it knows, the record ccc
	// writes, is what the strict decode below would read anyway: read it
	// once. Anything else (older, unknown keys, not valid) goes the long
	// way, which says what is wrong with it.
	if rec, ok := decodeCurrent(data, summary); ok {
		if err := validRecord(path, rec); err != nil {
			return nil, SchemaVersion, err
		}
		return rec, SchemaVersion, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, 0, &CorruptError{Path: path, Msg: "not a JSON object: " + err.Error()}
	}
	if top == nil {
		return nil, 0, &CorruptError{Path: path, Msg: "not a JSON object: null"}
	}
	version := 0
	if raw, ok := top["schemaVersion"]; ok {
		if err := json.Unmarshal(raw, &version); err != nil {
			return nil, 0, &CorruptError{Path: path, Msg: "schemaVersion is not an integer: " + string(raw)}
		}
	}
	from = version
	if version > SchemaVersion {
		return nil, from, fmt.Errorf("records: %s: schemaVersion %d is newer than this ccc reads (%d): upgrade ccc: %w",
			path, version, SchemaVersion, ErrSchema)
	}
	for ; version < SchemaVersion; version++ {
		m, ok := migrations[version]
		if !ok {
			return nil, from, fmt.Errorf("records: %s: schemaVersion %d cannot be migrated to %d: %w",
				path, version, SchemaVersion, ErrSchema)
		}
		if err := m(top); err != nil {
			return nil, from, fmt.Errorf("records: %s: migrate from schemaVersion %d: %w", path, version, err)
		}
	}
	known := map[string]json.RawMessage{}
	var unknown []string
	for k, v := range top {
		if knownKeys()[k] {
			known[k] = v
		} else {
			unknown = append(unknown, k)
		}
	}
	raw := data
	if from != SchemaVersion || len(unknown) > 0 {
		// Only what the current format knows goes through the strict decode.
		known["schemaVersion"] = json.RawMessage(fmt.Sprint(SchemaVersion))
		if raw, err = json.Marshal(known); err != nil {
			return nil, from, &CorruptError{Path: path, Msg: err.Error()}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	rec := &Record{}
	if err := dec.Decode(rec); err != nil {
		return nil, from, &CorruptError{Path: path, Msg: "not a checkpoint record: " + err.Error()}
	}
	if len(unknown) > 0 {
		if rec.Extra == nil {
			rec.Extra = map[string]json.RawMessage{}
		}
		sort.Strings(unknown)
		for _, k := range unknown {
			if _, taken := rec.Extra[k]; !taken {
				rec.Extra[k] = top[k]
			}
		}
	}
	if err := validRecord(path, rec); err != nil {
		return nil, from, err
	}
	return rec, from, nil
}

// validRecord checks what the decode cannot: an agent and a known status.
func validRecord(path string, rec *Record) error {
	switch {
	case strings.TrimSpace(rec.Agent) == "":
		return &CorruptError{Path: path, Msg: "not a checkpoint record: agent is missing"}
	case !ValidStatus(rec.Status):
		return &CorruptError{Path: path, Msg: fmt.Sprintf("not a checkpoint record: status %q is not one of in_progress, blocked, complete, failed", rec.Status)}
	}
	return nil
}

// decodeCurrent decodes a record in one pass when that gives what Decode's
// long way would: a JSON object whose top-level keys are all known, spelled
// exactly (the struct decode would also take "Agent" for "agent", which the
// long way keeps in Extra), of schemaVersion SchemaVersion, that decodes
// strictly, with nothing after it.
func decodeCurrent(data []byte, summary bool) (*Record, bool) {
	// decodeFast takes known keys written without escapes only: what it
	// reads, onlyKnownKeys passes (checkDecodeFast), so it goes first.
	if rec, ok := decodeFast(data, summary); ok {
		return rec, true
	}
	if !onlyKnownKeys(data) {
		return nil, false
	}
	return decodeWhole(data)
}

// decodeWhole is decodeCurrent's strict decode of the whole record by
// encoding/json, where decodeFast gives up.
func decodeWhole(data []byte) (*Record, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	rec := &Record{}
	if err := dec.Decode(rec); err != nil || rec.SchemaVersion != SchemaVersion {
		return nil, false
	}
	if len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, false
	}
	return rec, true
}

// onlyKnownKeys reports whether data is a JSON object whose top-level keys
// are all knownKeys, written without escapes. It reads the keys only and
// skips the values without checking them: the decode that follows does.
func onlyKnownKeys(data []byte) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return false
		}
		key := data[i+1 : i+1+end]
		if bytes.IndexByte(key, '\\') >= 0 || !knownKeys()[string(key)] {
			return false
		}
		i = skipSpace(data, i+end+2)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		if i = skipValue(data, skipSpace(data, i+1)); i < 0 {
			return false
		}
		i = skipSpace(data, i)
		switch {
		case i >= len(data):
			return false
		case data[i] == '}':
			return true
		case data[i] != ',':
			return false
		}
		i = skipSpace(data, i+1)
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value at i, -1 when it
// does not end: strings and nesting are followed, scalars run to the next
// delimiter.
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return i
			}
		}
		i++
		if depth == 0 && (data[i-1] == '"' || data[i-1] == '}' || data[i-1] == ']') {
			return i
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}

// ValidAgent checks that an agent name can name its record file.
func ValidAgent(agent string) error {
	switch {
	case strings.TrimSpace(agent) == "":
		return errors.New("records: the agent name is empty")
	case len(agent) > 100:
		return fmt.Errorf("records: agent name %.20q… is longer than 100 bytes", agent)
	case strings.HasPrefix(agent, "."), strings.ContainsAny(agent, `/\`+"\x00"), agent != filepath.Base(agent):
		return fmt.Errorf("records: agent name %q cannot name a file (no leading dot, no slashes)", agent)
	}
	return nil
}
