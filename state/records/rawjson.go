package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// member is one key of a JSON object and its value as written.
type member struct {
	key string
	val json.RawMessage
}

// members reads a JSON object's keys and values in file order.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("unexpected %v", tok)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, member{key, val})
	}
	return out, nil
}

// topValue is the value of key in the JSON object data.
func topValue(data []byte, key string) (json.RawMessage, bool) {
	ms, err := members(data)
	if err != nil {
		return nil, false
	}
	for _, m := range ms {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// setKeys replaces the values of some keys of the JSON object data (adding
// those it lacks at the end) and leaves every other key, and the order of
// all, as they were. The result is indented as Encode indents.
func setKeys(data []byte, set map[string]json.RawMessage) ([]byte, error) {
	ms, err := members(data)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for i, m := range ms {
		if v, ok := set[m.key]; ok {
			ms[i].val, done[m.key] = v, true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] {
			ms = append(ms, member{k, set[k]})
		}
	}
	var flat bytes.Buffer
	flat.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			flat.WriteByte(',')
		}
		k, err := marshal(m.key)
		if err != nil {
			return nil, err
		}
		flat.Write(k)
		flat.WriteByte(':')
		if err := json.Compact(&flat, m.val); err != nil {
			return nil, err
		}
	}
	flat.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, flat.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
