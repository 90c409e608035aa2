package records

import (
	"reflect"
	"testing"
)

// fastSeeds are records decodeFast must read as encoding/json does, or
// leave to it.
var fastSeeds = []string{
	`{"schemaVersion":1,"agent":"a","status":"in_progress"}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":null,"nextSteps":[],"subtasks":null}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":["a","b"],"completedSteps":["c"]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":["a\"q","\u00e9","\/"]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":[null,"x"]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":["bad ` + "\xff" + `"]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","completedSteps":["tab	in"]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"total":1,"completed":0,"failed":0,"percent":0,"items":[{"id":"x","status":"pending","output":null}]}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"total":1,"total":2}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"total":1.0}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"total":-0,"completed":01,"failed":1e2}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"total":99999999999999999999}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"items":[{"ID":"x","Status":"s"}]}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"items":[{"id":"x","more":1}]}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"items":[{"id":"x","output":"o"},{},null]}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","subtasks":{"items":null,"other":1}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","errors":[{"type":"blocker","message":"m","timestamp":null,"blocking":true,"x":1}]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","heartbeat":{"lastBeat":"2026-11-21T13:45:00Z","intervalSeconds":900,"y":2}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","createdAt":"2026-11-21T13:45:00Z","completedAt":null,"extra":{"k":[1,{"a":"}"}]}}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","acceptanceCriteriaMet":{"x":true,"x":false}}`,
	`{"schemaVersion":2,"agent":"a","status":"in_progress"}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress"} x`,
	` { "schemaVersion" : 1 , "agent" : "a" , "status" : "in_progress" , "nextSteps" : [ "a" , "b" ] } ` + "\n",
	`{"schemaVersion":1,"agent":"a","status":"in_progress","nextSteps":["a",]}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","phase":tru}`,
	`{"schemaVersion":1,"agent":"a","status":"in_progress","phase":"a","phase":"b"}`,
}

// checkDecodeFast: where decodeFast reads a record, its keys are all known
// and unescaped, and encoding/json's strict decode reads the same record.
func checkDecodeFast(t *testing.T, data []byte) {
	fast, ok := decodeFast(data, false)
	// The summary is the same reader: it takes what the full decode takes
	// and builds the summary's fields alike.
	sum, sok := decodeFast(data, true)
	if sok != ok {
		t.Fatalf("decodeFast of %q: %v, its summary: %v", data, ok, sok)
	}
	if !ok {
		return
	}
	if want := summaryOf(fast); !reflect.DeepEqual(sum, want) {
		t.Fatalf("the summary of %q is\n%+v\nthe full decode's summary fields\n%+v", data, sum, want)
	}
	if !onlyKnownKeys(data) {
		t.Fatalf("decodeFast read %q, whose keys onlyKnownKeys refuses", data)
	}
	whole, wok := decodeWhole(data)
	if !wok {
		t.Fatalf("decodeFast read %q, encoding/json refuses it", data)
	}
	if !reflect.DeepEqual(fast, whole) {
		t.Fatalf("decodeFast read %q as\n%+v\nencoding/json as\n%+v", data, fast, whole)
	}
}

// TestDecodeFastAgrees: the seeds, and records as ccc writes them, which
// decodeFast reads itself.
func TestDecodeFastAgrees(t *testing.T) {
	t.Parallel()
	for _, s := range fastSeeds {
		checkDecodeFast(t, []byte(s))
	}
	data := bigRecord(t, 300)
	checkDecodeFast(t, data)
	if _, ok := decodeFast(data, false); !ok {
		t.Fatal("decodeFast gave up on a record ccc wrote")
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Add(bigRecord(f, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeFast(t, data)
	})
}

// summaryOf is r with only the fields a summary builds.
func summaryOf(r *Record) *Record {
	out := &Record{}
	src, dst := reflect.ValueOf(r).Elem(), reflect.ValueOf(out).Elem()
	for i := range src.NumField() {
		if summaryFields()&(1<<i) != 0 {
			dst.Field(i).Set(src.Field(i))
		}
	}
	out.Subtasks.Items = nil
	return out
}

// TestFieldLookup: the reader tries the field after the last one first
// (ccc writes the keys in the fields' order) and falls back to the full
// look-up, so keys in any order, and unknown keys, read as they did.
func TestFieldLookup(t *testing.T) {
	t.Parallel()
	p := &fastReader{}
	keys := fieldKeys()
	for i, k := range keys {
		if got := p.field([]byte(k)); got != i {
			t.Fatalf("in order: field(%q) = %d, want %d", k, got, i)
		}
	}
	for i := len(keys) - 1; i >= 0; i-- {
		if got := p.field([]byte(keys[i])); got != i {
			t.Fatalf("backwards: field(%q) = %d, want %d", keys[i], got, i)
		}
	}
	if got := p.field([]byte("Agent")); got != -1 {
		t.Fatalf(`field("Agent") = %d, want -1`, got)
	}
	shuffled := `{"status":"in_progress","heartbeat":null,"agent":"a","schemaVersion":1,"head":"h","id":"x"}`
	checkDecodeFast(t, []byte(shuffled))
	if r, ok := decodeFast([]byte(shuffled), false); !ok || r.Agent != "a" || r.Head != "h" || r.ID != "x" {
		t.Fatalf("decodeFast of keys out of order: %+v, %v", r, ok)
	}
}

// TestStrSpecial: the table raw reads is the bytes a plain string stops at.
func TestStrSpecial(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		want := c < 0x20 || c == '"' || c == '\\' || c >= 0x80
		if strSpecial[c] != want {
			t.Errorf("strSpecial[%#x] = %v, want %v", c, strSpecial[c], want)
		}
	}
}
