package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Settings is an edit of an agent's settings file that is stricter than
// AddHooks: a file or a "hooks" that is not an object, or an event that is
// not a list, is refused with the way out, and a variable of the settings'
// "env" object may be set or offered.
type Settings struct {
	// File is the settings file, relative to the root.
	File  string
	Hooks []Hook
	// Again is the command to run once the user fixed the file.
	Again string
	// Var is a variable of the settings' "env" object the agent may need:
	// set to "1" with SetVar, else VarNote is said when it is not there.
	Var, VarNote string
	SetVar       bool
	// ChangedNote is said when the file changes.
	ChangedNote string
}

// Edit adds each of the hooks that the settings do not already run (the
// same ccc hook under the same event, whatever path to ccc) as a group of
// its own; the user's hooks and every other key are kept, in their order.
// A file that is not a JSON object is an error and is left alone. The file
// is replaced only if nobody changed it since it was read.
func (o Settings) Edit(root string, dryRun bool) (Result, error) {
	path := filepath.Join(root, o.File)
	res := Result{Path: path}
	orig, err := projectfs.ReadProjectFile(root, path, maxConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	top := object{}
	if len(bytes.TrimSpace(orig)) > 0 {
		if top, err = parseObject(orig); err != nil {
			return res, fmt.Errorf("%s: not a JSON object; fix it or move it away, then run %s again", path, o.Again)
		}
	}
	if raw, ok := top.get("hooks"); ok && !isObject(raw) {
		return res, fmt.Errorf("%s: \"hooks\" is not an object; left alone", path)
	}
	out, _, err := addHooks(orig, o.Hooks, groupOf)
	if err != nil {
		var list *notListError
		if errors.As(err, &list) {
			return res, fmt.Errorf("%s: hooks.%s is not a list; left alone", path, list.event)
		}
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if top, err = parseObject(out); err != nil {
		return res, err
	}
	envRaw, _ := top.get("env")
	env := object{}
	if isObject(envRaw) {
		env, _ = parseObject(envRaw)
	}
	if cur, set := env.get(o.Var); o.Var != "" && o.SetVar && string(cur) != `"1"` {
		env.set(o.Var, json.RawMessage(`"1"`))
		v, err := marshal(env)
		if err != nil {
			return res, err
		}
		top.set("env", v)
		if out, err = render(top); err != nil {
			return res, err
		}
	} else if !set && o.Var != "" && o.VarNote != "" {
		res.Notes = append(res.Notes, o.VarNote)
	}
	if bytes.Equal(out, orig) || (len(orig) > 0 && jsonEqual(orig, out)) {
		return res, nil
	}
	res.Changed, res.Diff = true, unifiedDiff(path, orig, out)
	if o.ChangedNote != "" {
		res.Notes = append(res.Notes, o.ChangedNote)
	}
	if dryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, err
	}
	var expect []byte
	if orig != nil {
		expect = orig
	}
	if err := projectfs.ReplaceFile(path, expect, out, 0o644); err != nil {
		return res, err
	}
	return res, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
