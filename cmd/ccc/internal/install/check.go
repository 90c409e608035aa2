package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Check is what a project's configuration holds of ccc's hooks for one
// agent.
type Check struct {
	// Path is the configuration file looked at.
	Path string
	// Exists says the file is there.
	Exists bool
	// Installed are the events whose ccc hook is there as ccc writes it.
	Installed []string
	// Missing are the events whose ccc hook is not there.
	Missing []string
	// Stale are ccc hooks that are there but not as ccc writes them now:
	// "Event: command" for a command ccc no longer runs at that event, or
	// one whose matcher differs from ccc's.
	Stale []string
}

// OK says every ccc hook is there and none is stale.
func (c Check) OK() bool { return len(c.Missing) == 0 && len(c.Stale) == 0 }

// isCCCHook reports whether a command runs a ccc hook (any path to ccc).
func isCCCHook(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && filepath.Base(f[0]) == "ccc" && f[1] == "hook"
}

// sameCommand reports whether got runs the ccc hook want names: the same
// words after any path to ccc.
func sameCommand(got, want string) bool {
	g, w := strings.Fields(got), strings.Fields(want)
	return len(g) == len(w) && len(g) > 0 && filepath.Base(g[0]) == w[0] &&
		strings.Join(g[1:], " ") == strings.Join(w[1:], " ")
}

// group is the part of a matcher group ccc reads.
type group struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Command string `json:"command"`
	} `json:"hooks"`
}

// checkHooks compares the settings file at path with hooks. A file that
// is not a JSON object is an error.
func checkHooks(root, path string, hooks []Hook) (Check, error) {
	c := Check{Path: path}
	data, err := projectfs.ReadProjectFile(root, path, maxConfig)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return c, err
	default:
		c.Exists = true
	}
	events := object{}
	if len(data) > 0 {
		top, err := parseObject(data)
		if err != nil {
			return c, fmt.Errorf("%s: %w", path, err)
		}
		if raw, ok := top.get("hooks"); ok {
			if events, err = parseObject(raw); err != nil {
				return c, fmt.Errorf(`%s: "hooks": %w`, path, err)
			}
		}
	}
	want := map[string]Hook{}
	for _, h := range hooks {
		want[h.Event+"\x00"+strings.Join(strings.Fields(h.Command)[1:], " ")] = h
	}
	found := map[string]bool{}
	for _, ev := range events {
		var groups []group
		if json.Unmarshal(ev.Value, &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, h := range g.Hooks {
				if !isCCCHook(h.Command) {
					continue
				}
				w, ok := want[ev.Key+"\x00"+strings.Join(strings.Fields(h.Command)[1:], " ")]
				switch {
				case !ok:
					c.Stale = append(c.Stale, ev.Key+": "+h.Command)
				case g.Matcher != w.Matcher:
					c.Stale = append(c.Stale, fmt.Sprintf("%s: %s (matcher %q, ccc's is %q)", ev.Key, h.Command, g.Matcher, w.Matcher))
					found[w.Event+w.Command] = true
				default:
					found[w.Event+w.Command] = true
				}
			}
		}
	}
	for _, h := range hooks {
		if found[h.Event+h.Command] {
			c.Installed = append(c.Installed, h.Event)
		} else {
			c.Missing = append(c.Missing, h.Event)
		}
	}
	return c, nil
}

// removeHooks takes every ccc hook out of a settings file: handlers that
// run `ccc hook …`, then the groups and events they leave empty. Every
// other key, group and handler stays, in its order.
func removeHooks(data []byte) ([]byte, []string, error) {
	if len(data) == 0 {
		return data, nil, nil
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, nil, err
	}
	raw, ok := top.get("hooks")
	if !ok {
		return data, nil, nil
	}
	events, err := parseObject(raw)
	if err != nil {
		return nil, nil, fmt.Errorf(`"hooks": %w`, err)
	}
	var removed []string
	kept := object{}
	for _, ev := range events {
		var groups []json.RawMessage
		if json.Unmarshal(ev.Value, &groups) != nil {
			kept = append(kept, ev) // not a list: not ccc's to touch
			continue
		}
		var out []json.RawMessage
		n := 0
		for _, g := range groups {
			g2, dropped, err := withoutCCC(g)
			if err != nil {
				return nil, nil, fmt.Errorf(`"hooks"."%s": %w`, ev.Key, err)
			}
			n += dropped
			if g2 != nil {
				out = append(out, g2)
			}
		}
		if n == 0 {
			kept = append(kept, ev)
			continue
		}
		removed = append(removed, ev.Key)
		if len(out) == 0 {
			continue
		}
		list, err := marshal(out)
		if err != nil {
			return nil, nil, err
		}
		kept = append(kept, member{ev.Key, list})
	}
	if len(removed) == 0 {
		return data, nil, nil
	}
	ev, err := marshal(kept)
	if err != nil {
		return nil, nil, err
	}
	top.set("hooks", ev)
	out, err := render(top)
	return out, removed, err
}

// withoutCCC is a matcher group without its ccc handlers, nil when none is
// left; dropped counts them.
func withoutCCC(raw json.RawMessage) (json.RawMessage, int, error) {
	g, err := parseObject(raw)
	if err != nil {
		return raw, 0, nil // not an object: not ccc's
	}
	hs, ok := g.get("hooks")
	if !ok {
		return raw, 0, nil
	}
	var handlers []json.RawMessage
	if json.Unmarshal(hs, &handlers) != nil {
		return raw, 0, nil
	}
	var keep []json.RawMessage
	for _, h := range handlers {
		var c struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(h, &c) == nil && isCCCHook(c.Command) {
			continue
		}
		keep = append(keep, h)
	}
	dropped := len(handlers) - len(keep)
	if dropped == 0 {
		return raw, 0, nil
	}
	if len(keep) == 0 {
		return nil, dropped, nil
	}
	list, err := marshal(keep)
	if err != nil {
		return nil, 0, err
	}
	g.set("hooks", list)
	out, err := marshal(g)
	return out, dropped, err
}
