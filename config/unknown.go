package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// schema is the tree of keys ccc knows in a preferences file; a nil value
// is a leaf, and the key "*" stands for any name (a sink's).
type schema map[string]schema

// known is every key of Prefs, HookPrefs and agents:, from their tags; built
// on first use (only a run that reads a preferences file needs it), not at init.
var known = sync.OnceValue(func() schema {
	s := schemaOf(reflect.TypeOf(Prefs{}))
	for k, v := range schemaOf(reflect.TypeOf(HookPrefs{})) {
		s[k] = v
	}
	s["agents"] = schemaOf(reflect.TypeOf(AgentPrefs{}))
	return s
})

func schemaOf(t reflect.Type) schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeOf(Duration(0)) {
			return nil
		}
		s := schema{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			s[name] = schemaOf(t.Field(i).Type)
		}
		return s
	case reflect.Map:
		if sub := schemaOf(t.Elem()); sub != nil {
			return schema{"*": sub}
		}
	}
	return nil
}

// unknownKey finds the first key of doc (in file order) that ccc does not
// know, as an error with its line and the nearest known key; nil if none.
func unknownKey(doc *yaml.Node, path string) error {
	return walkUnknown(resolve(doc), known(), "", path)
}

func walkUnknown(n *yaml.Node, s schema, prefix, path string) error {
	if n == nil || n.Kind != yaml.MappingNode || s == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		sub, ok := s[k.Value]
		if !ok {
			sub, ok = s["*"]
		}
		if !ok {
			msg := fmt.Sprintf("%s:%d: unknown key %s%s", path, k.Line, prefix, k.Value)
			if near := nearest(k.Value, s); near != "" {
				msg += fmt.Sprintf(" (did you mean %s%s?)", prefix, near)
			}
			return fmt.Errorf("preferences: %s", msg)
		}
		if err := walkUnknown(resolve(n.Content[i+1]), sub, prefix+k.Value+".", path); err != nil {
			return err
		}
	}
	return nil
}

// nearest is the known key closest to key, within a third of its length in
// edits (at least 2); "" when none is that close.
func nearest(key string, s schema) string {
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	sort.Strings(names)
	best, bestD := "", max(2, len(key)/3)+1
	for _, name := range names {
		if d := distance(key, name); d < bestD {
			best, bestD = name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
