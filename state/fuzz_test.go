package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParse feeds the state reader arbitrary bytes. It must never panic;
// it must accept exactly the documents that are one JSON object; what it
// accepts must render (Marshal) to a document it reads back with the same
// keys and values, and rendering that again changes nothing; what it
// refuses must be a *CorruptError whose position lies inside the input.
// The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(cccState))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"ccc":{"refs":{"linear":{"CIA-1":{"main":{"id":"x"}}}}}}`))
	f.Add([]byte(`{"taskIndex": 1.0e0, "n": -0, "s": "\u00e9\ud83d\ude00"}`))
	f.Add([]byte("{\"phase\":\"execution\"} {}"))
	f.Add([]byte("[1,2]"))
	f.Add([]byte("{\n  \"a\": [\n"))
	f.Fuzz(checkParse)
}

func checkParse(t *testing.T, data []byte) {
	st, err := Parse(data)
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	object := json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{'
	if err != nil {
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v (%T) is not a *CorruptError", err, err)
		}
		if object {
			t.Fatalf("a JSON object was refused: %v", err)
		}
		if ce.Line < 0 || ce.Line > bytes.Count(data, []byte("\n"))+1 || (ce.Line > 0 && ce.Col < 1) {
			t.Fatalf("position %d:%d is outside the input (%d lines)", ce.Line, ce.Col, bytes.Count(data, []byte("\n"))+1)
		}
		return
	}
	if !object {
		t.Fatalf("accepted what is not one JSON object: %q", data)
	}
	out, err := st.Marshal()
	if err != nil {
		t.Fatalf("Marshal of an accepted state: %v", err)
	}
	back, err := Parse(out)
	if err != nil {
		t.Fatalf("the rendered state does not parse: %v\n%s", err, out)
	}
	if a, b := st.Keys(), back.Keys(); !equalStrings(a, b) {
		t.Fatalf("keys changed in a round trip: %q became %q", a, b)
	}
	for _, k := range st.Keys() {
		v1, _ := st.Raw(k)
		v2, _ := back.Raw(k)
		if !sameJSON(v1, v2) {
			t.Fatalf("%q changed in a round trip: %s became %s", k, v1, v2)
		}
	}
	again, err := back.Marshal()
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("rendering is not stable (%v):\n%s\nthen\n%s", err, out, again)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameJSON compares two JSON values byte for byte once compacted: the
// renderer may re-indent a value, never change it.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
