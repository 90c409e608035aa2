package state

import (
	"encoding/json"
	"fmt"
	"time"
)

// cccKey is the one key of the shared state file that belongs to ccc alone.
const cccKey = "ccc"

// Checkpoint is what ccc remembers of the last checkpoint, so `ccc go` can
// tell how old it is and whether the repository moved since.
type Checkpoint struct {
	At     time.Time `json:"at"`
	Agent  string    `json:"agent,omitempty"`
	Branch string    `json:"branch,omitempty"`
	Head   string    `json:"head,omitempty"`
}

type cccSection struct {
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Refs: sink → target → agent → the sink's reference.
	Refs map[string]map[string]map[string]json.RawMessage `json:"refs,omitempty"`
	// Other keeps what a newer ccc wrote there.
	Other map[string]json.RawMessage `json:"-"`
}

func (s *State) ccc() (cccSection, error) {
	var sec cccSection
	var all map[string]json.RawMessage
	if _, err := s.Get(cccKey, &all); err != nil {
		return sec, err
	}
	raw, err := json.Marshal(all)
	if err != nil {
		return sec, err
	}
	if err := json.Unmarshal(raw, &sec); err != nil {
		return sec, fmt.Errorf("state: %s: %w", cccKey, err)
	}
	delete(all, "checkpoint")
	delete(all, "refs")
	sec.Other = all
	return sec, nil
}

func (s *State) setCCC(sec cccSection) error {
	out := map[string]any{}
	for k, v := range sec.Other {
		out[k] = v
	}
	if sec.Checkpoint != nil {
		out["checkpoint"] = sec.Checkpoint
	}
	if len(sec.Refs) > 0 {
		out["refs"] = sec.Refs
	}
	return s.Set(cccKey, out)
}

// LastCheckpoint returns the record of the last checkpoint, if any.
func (s *State) LastCheckpoint() (Checkpoint, bool) {
	sec, err := s.ccc()
	if err != nil || sec.Checkpoint == nil {
		return Checkpoint{}, false
	}
	return *sec.Checkpoint, true
}

// SetLastCheckpoint records the checkpoint just taken.
func (s *State) SetLastCheckpoint(c Checkpoint) error {
	sec, err := s.ccc()
	if err != nil {
		return err
	}
	sec.Checkpoint = &c
	return s.setCCC(sec)
}

// Ref decodes the reference a sink stored for (target, agent) into v.
func (s *State) Ref(sink, target, agent string, v any) (bool, error) {
	sec, err := s.ccc()
	if err != nil {
		return false, err
	}
	raw, ok := sec.Refs[sink][target][agent]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("state: ref %s/%s/%s: %w", sink, target, agent, err)
	}
	return true, nil
}

// SetRef stores a sink's reference for (target, agent).
func (s *State) SetRef(sink, target, agent string, v any) error {
	sec, err := s.ccc()
	if err != nil {
		return err
	}
	raw, err := marshal(v)
	if err != nil {
		return err
	}
	if sec.Refs == nil {
		sec.Refs = map[string]map[string]map[string]json.RawMessage{}
	}
	if sec.Refs[sink] == nil {
		sec.Refs[sink] = map[string]map[string]json.RawMessage{}
	}
	if sec.Refs[sink][target] == nil {
		sec.Refs[sink][target] = map[string]json.RawMessage{}
	}
	sec.Refs[sink][target][agent] = raw
	return s.setCCC(sec)
}
