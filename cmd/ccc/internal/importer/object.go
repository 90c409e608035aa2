package importer

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/state"
)

// object reads one JSON object of the source and remembers which keys the
// record took over; the others (and values of an unexpected type, and
// template placeholders) end up in the record's extra.
type object struct {
	d        *draft
	name     string // dotted path, for warnings
	st       *state.State
	used     map[string]bool
	children map[string]*object
}

func (d *draft) object(name string, st *state.State) *object {
	return &object{d: d, name: name, st: st, used: map[string]bool{}, children: map[string]*object{}}
}

func (o *object) path(k string) string {
	if o.name == "" {
		return k
	}
	return o.name + "." + k
}

// placeholderRe matches an unfilled template value such as "{ISO_timestamp}"
// or "{in_progress|completed|blocked}" (seed 000 writes its example so).
var placeholderRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{[A-Za-z0-9_|. -]+\}$`) })

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// value decodes key into v without taking it over. It reports false for a
// missing or null key and, with a warning, for a value of another type.
func (o *object) value(k string, v any, want string) bool {
	raw, ok := o.st.Raw(k)
	if !ok || isNull(raw) {
		return false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		o.d.warnf("%s: expected %s; kept in extra", o.path(k), want)
		return false
	}
	return true
}

// use marks key as carried by the record. A null value is always taken: it
// says nothing the record's own empty value does not.
func (o *object) use(k string) { o.used[k] = true }

// null takes over a key that is present and null.
func (o *object) null(k string) bool {
	raw, ok := o.st.Raw(k)
	if ok && isNull(raw) {
		o.use(k)
		return true
	}
	return false
}

// peekStr reads a string without taking it over (the record shows it only
// in a derived form, so the original stays in extra).
func (o *object) peekStr(k string) string {
	var s string
	if !o.value(k, &s, "a string") || placeholderRe().MatchString(strings.TrimSpace(s)) {
		return ""
	}
	return strings.TrimSpace(s)
}

// str reads and takes over a string. A template placeholder is left in
// extra, with a warning.
func (o *object) str(k string) string {
	if o.null(k) {
		return ""
	}
	var s string
	if !o.value(k, &s, "a string") {
		return ""
	}
	if placeholderRe().MatchString(strings.TrimSpace(s)) {
		o.d.warnf("%s: template placeholder %s, not a value; kept in extra", o.path(k), s)
		return ""
	}
	o.use(k)
	return strings.TrimSpace(s)
}

// strs reads and takes over an array of strings.
func (o *object) strs(k string) []string {
	if o.null(k) {
		return nil
	}
	var ss []string
	if !o.value(k, &ss, "an array of strings") {
		return nil
	}
	o.use(k)
	out := ss[:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// integer reads and takes over a whole number.
func (o *object) integer(k string) (int, bool) {
	if o.null(k) {
		return 0, false
	}
	var n int
	if !o.value(k, &n, "a whole number") {
		return 0, false
	}
	o.use(k)
	return n, true
}

// boolean reads and takes over true or false.
func (o *object) boolean(k string) (bool, bool) {
	if o.null(k) {
		return false, false
	}
	var b bool
	if !o.value(k, &b, "true or false") {
		return false, false
	}
	o.use(k)
	return b, true
}

// time reads and takes over a timestamp (the zero time when there is
// none, which the record writes as null); one that does not parse is left
// in extra, with a warning.
func (o *object) time(k string) time.Time {
	if o.null(k) {
		return time.Time{}
	}
	var s string
	if !o.value(k, &s, "a timestamp string") {
		return time.Time{}
	}
	t, ok := parseTime(s)
	if !ok {
		if placeholderRe().MatchString(strings.TrimSpace(s)) {
			o.d.warnf("%s: template placeholder %s, not a timestamp; kept in extra", o.path(k), s)
		} else {
			o.d.warnf("%s: %q is not a timestamp; kept in extra", o.path(k), s)
		}
		return time.Time{}
	}
	o.use(k)
	if t.After(o.d.latest) {
		o.d.latest = t
	}
	return t
}

// sub opens a nested object. The key counts as taken over; what the record
// does not take of the nested object is kept in extra under the same key.
func (o *object) sub(k string) *object {
	raw, ok := o.st.Raw(k)
	if !ok {
		return nil
	}
	if isNull(raw) {
		o.use(k)
		return nil
	}
	st, err := state.Parse(raw)
	if err != nil {
		o.d.warnf("%s: expected an object; kept in extra", o.path(k))
		return nil
	}
	c := o.d.object(o.path(k), st)
	o.children[k] = c
	o.use(k)
	return c
}

// objects reads an array of objects. It does not take the key over: the
// caller does once it has taken every element whole.
func (o *object) objects(k string) ([]*object, bool) {
	var raws []json.RawMessage
	if !o.value(k, &raws, "an array of objects") {
		return nil, o.null(k)
	}
	out := make([]*object, 0, len(raws))
	for _, raw := range raws {
		st, err := state.Parse(raw)
		if err != nil {
			o.d.warnf("%s: expected an array of objects; kept in extra", o.path(k))
			return nil, false
		}
		out = append(out, o.d.object(o.path(k)+"[]", st))
	}
	return out, true
}

// whole reports whether the record took over every key of the object.
func (o *object) whole() bool { return len(o.rest()) == 0 }

// rest is what the record did not take over, nested objects included.
func (o *object) rest() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, k := range o.st.Keys() {
		raw, _ := o.st.Raw(k)
		if c, ok := o.children[k]; ok {
			if r := c.rest(); len(r) > 0 {
				b, err := json.Marshal(r)
				if err == nil {
					out[k] = b
				}
			}
			continue
		}
		if !o.used[k] {
			out[k] = compact(raw)
		}
	}
	return out
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// timeLayouts are the timestamp shapes seen in the protocols' files; a
// timestamp without a zone is taken as UTC, which is what they all write.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
