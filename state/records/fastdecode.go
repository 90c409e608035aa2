package records

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// A record's bulk is its lists of steps and subtasks: thousands of short
// strings that encoding/json reads through a buffered copy, a validating scan
// and reflection per element. decodeFast reads those lists itself, and the
// other values in the shapes a record ccc wrote has (plainValue); any other
// value goes to encoding/json on its own (decodeStrict). It gives up (ok
// false, and decodeCurrent decodes the usual way) at anything it does not
// read exactly as that decode would: a key twice, an escape in a key, a list
// element that is not a plain string, an unknown or differently spelled key
// in a subtask, a number that is not a plain integer. FuzzDecodeFast holds
// the two decodes equal.

// fieldIndex maps each key of the record format to its field of Record.
var fieldIndex = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[Record]()
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		m[jsonKey(t.Field(i))] = i
	}
	return m
})

// fieldKeys are the keys of the record format in the order of Record's
// fields, the order ccc writes them in.
var fieldKeys = sync.OnceValue(func() []string {
	t := reflect.TypeFor[Record]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i] = jsonKey(t.Field(i))
	}
	return keys
})

// field is the index of key's field of Record, -1 for no field. A record
// ccc wrote has its keys in the fields' order, so the field after the last
// one read is tried first (a hash of every key was a fifth of decoding a
// small record: issue 26, ccc status over 1,000 of them).
func (p *fastReader) field(key []byte) int {
	keys := fieldKeys()
	if p.next < len(keys) && keys[p.next] == string(key) {
		p.next++
		return p.next - 1
	}
	i, known := fieldIndex()[string(key)]
	if !known {
		return -1
	}
	p.next = i + 1
	return i
}

// summaryKeys are the fields a summary decode builds: what `ccc status`
// shows and judges a record by (Collect). The others (the lists of steps,
// subtasks' items, files, errors, the prompt, the other times, extra) are
// read and checked as the full decode checks them, and not built: a
// thousand records' task lists were most of status's allocations.
var summaryKeys = []string{"schemaVersion", "id", "agent", "sessionId", "issue", "status", "currentStep",
	"subtasks", "updatedAt", "heartbeat", "branch", "head"}

// summaryFields is summaryKeys as a set of Record's field indexes.
var summaryFields = sync.OnceValue(func() uint64 {
	var set uint64
	for _, k := range summaryKeys {
		set |= 1 << fieldIndex()[k]
	}
	return set
})

// fastReader reads JSON from data at i.
type fastReader struct {
	data []byte
	i    int
	// summary: build only summaryKeys' fields (and the subtasks' counts,
	// not their items); every value is still read and checked.
	summary bool
	// next is the field after the last top-level key read (field).
	next int
	// rec is the record being read, whose steps a subtask's id usually
	// repeats (stepAt).
	rec *Record
}

// stepAt is the step a record ccc wrote lists as its k-th subtask (the
// completed steps, the current one, the steps left, in that order), ""
// when there is none. A hint only: an id is compared with it byte for byte.
func (p *fastReader) stepAt(k int) string {
	if p.rec == nil {
		return ""
	}
	r := p.rec
	if k < len(r.CompletedSteps) {
		return r.CompletedSteps[k]
	}
	k -= len(r.CompletedSteps)
	if r.CurrentStep != "" {
		if k == 0 {
			return r.CurrentStep
		}
		k--
	}
	if k < len(r.NextSteps) {
		return r.NextSteps[k]
	}
	return ""
}

// shared is b as a string: same as one already held when equal to it (a
// subtask's id and its step, a status), else a copy.
func shared(b []byte, held string) string {
	if string(b) == held {
		return held
	}
	switch string(b) {
	case "pending":
		return "pending"
	case StatusInProgress:
		return StatusInProgress
	case StatusBlocked:
		return StatusBlocked
	case StatusComplete:
		return StatusComplete
	case StatusFailed:
		return StatusFailed
	}
	return string(b)
}

func (p *fastReader) space() { p.i = skipSpace(p.data, p.i) }

func (p *fastReader) byte(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *fastReader) null() bool {
	p.space()
	if bytes.HasPrefix(p.data[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// str reads a string that needs no unescaping: no backslash, no control
// character, valid UTF-8 (encoding/json would turn invalid bytes into
// U+FFFD).
func (p *fastReader) str() (string, bool) {
	b, ok := p.raw()
	if !ok {
		return "", false
	}
	return string(b), true
}

// raw is str's bytes, not copied: for a key, which is only compared.
func (p *fastReader) raw() ([]byte, bool) {
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return nil, false
	}
	start := p.i + 1
	ascii := true
	for j := start; j < len(p.data); j++ {
		c := p.data[j]
		if !strSpecial[c] {
			continue
		}
		switch {
		case c == '"':
			s := p.data[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		default:
			ascii = false
		}
	}
	return nil, false
}

// strSpecial are the bytes raw stops at: control characters, the closing
// quote, an escape and the bytes of non-ASCII UTF-8 (one look-up a byte
// rather than three comparisons: most of a record is its strings). A
// literal, so that no code builds it at package init; TestStrSpecial holds
// it to its definition.
var strSpecial = [256]bool{
	0x00: true, 0x01: true, 0x02: true, 0x03: true, 0x04: true, 0x05: true, 0x06: true, 0x07: true,
	0x08: true, 0x09: true, 0x0a: true, 0x0b: true, 0x0c: true, 0x0d: true, 0x0e: true, 0x0f: true,
	0x10: true, 0x11: true, 0x12: true, 0x13: true, 0x14: true, 0x15: true, 0x16: true, 0x17: true,
	0x18: true, 0x19: true, 0x1a: true, 0x1b: true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	'"': true, '\\': true,
	0x80: true, 0x81: true, 0x82: true, 0x83: true, 0x84: true, 0x85: true, 0x86: true, 0x87: true,
	0x88: true, 0x89: true, 0x8a: true, 0x8b: true, 0x8c: true, 0x8d: true, 0x8e: true, 0x8f: true,
	0x90: true, 0x91: true, 0x92: true, 0x93: true, 0x94: true, 0x95: true, 0x96: true, 0x97: true,
	0x98: true, 0x99: true, 0x9a: true, 0x9b: true, 0x9c: true, 0x9d: true, 0x9e: true, 0x9f: true,
	0xa0: true, 0xa1: true, 0xa2: true, 0xa3: true, 0xa4: true, 0xa5: true, 0xa6: true, 0xa7: true,
	0xa8: true, 0xa9: true, 0xaa: true, 0xab: true, 0xac: true, 0xad: true, 0xae: true, 0xaf: true,
	0xb0: true, 0xb1: true, 0xb2: true, 0xb3: true, 0xb4: true, 0xb5: true, 0xb6: true, 0xb7: true,
	0xb8: true, 0xb9: true, 0xba: true, 0xbb: true, 0xbc: true, 0xbd: true, 0xbe: true, 0xbf: true,
	0xc0: true, 0xc1: true, 0xc2: true, 0xc3: true, 0xc4: true, 0xc5: true, 0xc6: true, 0xc7: true,
	0xc8: true, 0xc9: true, 0xca: true, 0xcb: true, 0xcc: true, 0xcd: true, 0xce: true, 0xcf: true,
	0xd0: true, 0xd1: true, 0xd2: true, 0xd3: true, 0xd4: true, 0xd5: true, 0xd6: true, 0xd7: true,
	0xd8: true, 0xd9: true, 0xda: true, 0xdb: true, 0xdc: true, 0xdd: true, 0xde: true, 0xdf: true,
	0xe0: true, 0xe1: true, 0xe2: true, 0xe3: true, 0xe4: true, 0xe5: true, 0xe6: true, 0xe7: true,
	0xe8: true, 0xe9: true, 0xea: true, 0xeb: true, 0xec: true, 0xed: true, 0xee: true, 0xef: true,
	0xf0: true, 0xf1: true, 0xf2: true, 0xf3: true, 0xf4: true, 0xf5: true, 0xf6: true, 0xf7: true,
	0xf8: true, 0xf9: true, 0xfa: true, 0xfb: true, 0xfc: true, 0xfd: true, 0xfe: true, 0xff: true,
}

// integer reads -?[0-9]+ that fits an int.
func (p *fastReader) integer() (int, bool) {
	p.space()
	j := p.i
	if j < len(p.data) && p.data[j] == '-' {
		j++
	}
	for j < len(p.data) && p.data[j] >= '0' && p.data[j] <= '9' {
		j++
	}
	if j < len(p.data) && (p.data[j] == '.' || p.data[j] == 'e' || p.data[j] == 'E') {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.data[p.i:j]))
	if err != nil || len(p.data[p.i:j]) > 1 && p.data[p.i] == '0' || bytes.HasPrefix(p.data[p.i:j], []byte("-0")) {
		return 0, false
	}
	p.i = j
	return n, true
}

// object calls member for each key of an object, in order; keys are plain
// strings. member returns the key's number (below 64), so that a key given
// twice is refused.
func (p *fastReader) object(member func(key []byte) (int, bool)) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	var seen uint64
	for {
		key, ok := p.raw()
		if !ok || !p.byte(':') {
			return false
		}
		n, ok := member(key)
		if !ok || n < 0 || n >= 64 || seen&(1<<n) != 0 {
			return false
		}
		seen |= 1 << n
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// array calls elem for each element of an array; null is (nil, true).
func (p *fastReader) array(elem func() bool) (isNull, ok bool) {
	if p.null() {
		return true, true
	}
	if !p.byte('[') {
		return false, false
	}
	if p.byte(']') {
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		if p.byte(']') {
			return false, true
		}
		if !p.byte(',') {
			return false, false
		}
	}
}

// strings reads a list of plain strings; with build false it checks them
// and returns nil.
func (p *fastReader) strings(build bool) ([]string, bool) {
	if !build {
		_, ok := p.array(func() bool {
			_, ok := p.raw()
			return ok
		})
		return nil, ok
	}
	out := []string{}
	isNull, ok := p.array(func() bool {
		s, ok := p.str()
		out = append(out, s)
		return ok
	})
	if isNull {
		return nil, ok
	}
	return out, ok
}

func (p *fastReader) subtasks(st *Subtasks) bool {
	if p.null() {
		return true
	}
	return p.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "total":
			n, ok := p.integer()
			st.Total = n
			return 0, ok
		case "completed":
			n, ok := p.integer()
			st.Completed = n
			return 1, ok
		case "failed":
			n, ok := p.integer()
			st.Failed = n
			return 2, ok
		case "percent":
			n, ok := p.integer()
			st.Percent = n
			return 3, ok
		case "items":
			return 4, p.items(st)
		}
		return 0, false
	})
}

func (p *fastReader) items(st *Subtasks) bool {
	if p.summary {
		_, ok := p.array(func() bool {
			return p.object(func(key []byte) (int, bool) {
				n := subtaskKey(key)
				if n == 2 && p.null() {
					return n, true
				}
				_, ok := p.raw()
				return n, ok && n >= 0
			})
		})
		return ok
	}
	// Sized from the total ccc writes before the items, within what the
	// bytes left can hold (an item takes at least 40): no doubling.
	items := make([]Subtask, 0, max(0, min(st.Total, (len(p.data)-p.i)/40)))
	isNull, ok := p.array(func() bool {
		var it Subtask
		ok := p.object(func(key []byte) (int, bool) {
			switch n := subtaskKey(key); n {
			case 0, 1:
				// The id is usually its step's text, already read, and the
				// status one of a few words: neither copied again (a
				// 10,000-task record's previous version is decoded at every
				// checkpoint, issue 26).
				b, ok := p.raw()
				if n == 0 {
					it.ID = shared(b, p.stepAt(len(items)))
				} else {
					it.Status = shared(b, "")
				}
				return n, ok
			case 2:
				if p.null() {
					return n, true
				}
				s, ok := p.str()
				it.Output = &s
				return n, ok
			}
			return 0, false
		})
		items = append(items, it)
		return ok
	})
	if isNull {
		items = nil
	}
	st.Items = items
	return ok
}

// subtaskKey is the number of a subtask's key (its field of Subtask), -1
// for any other.
func subtaskKey(key []byte) int {
	switch string(key) {
	case "id":
		return 0
	case "status":
		return 1
	case "output":
		return 2
	}
	return -1
}

// decodeFast decodes data, a record whose top-level keys are all known
// (onlyKnownKeys), as a strict json.Decoder would, or reports that it
// cannot. With summary, only summaryKeys' fields are built; it takes and
// refuses exactly what the full decode does (FuzzDecodeFast).
func decodeFast(data []byte, summary bool) (*Record, bool) {
	rec := &Record{}
	v := reflect.ValueOf(rec).Elem()
	p := &fastReader{data: data, summary: summary, rec: rec}
	keep := ^uint64(0)
	if summary {
		keep = summaryFields()
	}
	ok := p.object(func(key []byte) (int, bool) {
		i := p.field(key)
		if i < 0 {
			return 0, false
		}
		build := keep&(1<<i) != 0
		var ok bool
		switch string(key) {
		case "completedSteps":
			rec.CompletedSteps, ok = p.strings(build)
		case "nextSteps":
			rec.NextSteps, ok = p.strings(build)
		case "subtasks":
			ok = p.subtasks(&rec.Subtasks)
		default:
			p.space()
			f := v.Field(i)
			at := p.i
			if p.plainValue(f, build) { // the common shapes: no decoder at all
				return i, true
			}
			p.i = at
			end := skipValue(data, p.i)
			if end < 0 {
				return 0, false
			}
			if !build {
				f = reflect.New(f.Type()).Elem() // checked, then dropped
			}
			ok = decodeStrict(data[p.i:end], f.Addr().Interface())
			p.i = end
		}
		return i, ok
	})
	p.space()
	if !ok || p.i != len(data) || rec.SchemaVersion != SchemaVersion {
		return nil, false
	}
	return rec, true
}

// decodeStrict decodes one value as the whole record's strict decode would:
// a value whose type holds a struct (the errors, the heartbeat) through a
// json.Decoder that refuses unknown fields; any other through json.Unmarshal,
// which allocates less and has no unknown field to refuse.
func decodeStrict(raw []byte, ptr any) bool {
	switch ptr.(type) {
	case *[]Error, *Beat:
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		return dec.Decode(ptr) == nil && dec.InputOffset() == int64(len(raw))
	}
	return json.Unmarshal(raw, ptr) == nil
}

var (
	errorsType = reflect.TypeFor[[]Error]()
	beatType   = reflect.TypeFor[Beat]()
)

// plainValue reads the value of a field in the shapes a record ccc wrote
// has: a plain string or integer, a list of plain strings, a time, the
// heartbeat, an empty list of errors, an empty map, or null. Anything else
// is false, for encoding/json to read. With build false the value is read
// and checked alike, and f is left as it is.
func (p *fastReader) plainValue(f reflect.Value, build bool) bool {
	switch {
	case f.Kind() == reflect.String:
		b, ok := p.raw()
		if build && ok {
			f.SetString(shared(b, ""))
		}
		return ok
	case f.Kind() == reflect.Int:
		n, ok := p.integer()
		if build {
			f.SetInt(int64(n))
		}
		return ok
	case f.Type() == timeType:
		if !build {
			var t time.Time
			return p.time(&t)
		}
		return p.time(f.Addr().Interface().(*time.Time))
	case f.Type() == beatType:
		if !build {
			var b Beat
			return p.beat(&b)
		}
		return p.beat(f.Addr().Interface().(*Beat))
	case p.null():
		return true // encoding/json leaves the field as it is
	case f.Type() == reflect.TypeFor[[]string]():
		l, ok := p.strings(build)
		if build {
			f.Set(reflect.ValueOf(l))
		}
		return ok
	case f.Type() == errorsType:
		if p.byte('[') && p.byte(']') {
			if build {
				f.Set(reflect.ValueOf([]Error{}))
			}
			return true
		}
	case f.Kind() == reflect.Map:
		if p.byte('{') && p.byte('}') {
			if build {
				f.Set(reflect.MakeMap(f.Type())) // as encoding/json makes one for {}
			}
			return true
		}
	}
	return false
}

// time reads null (the time is left as it is) or a plain string, which
// time.Time's own UnmarshalJSON reads as encoding/json would call it.
func (p *fastReader) time(t *time.Time) bool {
	if p.null() {
		return true
	}
	p.space()
	at := p.i
	if _, ok := p.raw(); !ok {
		return false
	}
	return t.UnmarshalJSON(p.data[at:p.i]) == nil
}

func (p *fastReader) beat(b *Beat) bool {
	if p.null() {
		return true
	}
	return p.object(func(key []byte) (int, bool) {
		switch string(key) {
		case "lastBeat":
			return 0, p.time(&b.LastBeat)
		case "intervalSeconds":
			n, ok := p.integer()
			b.IntervalSeconds = n
			return 1, ok
		}
		return 0, false
	})
}
