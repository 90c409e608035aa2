package state

import "slices"

// HasRefs reports whether ccc ever stored a reference for sink in this
// state: when it has not, keys such as checkpointCommentId were written by
// other tools (CCC's own commands) and describe a comment ccc may adopt.
func (s *State) HasRefs(sink string) bool {
	sec, err := s.ccc()
	return err == nil && len(sec.Refs[sink]) > 0
}

// RefTargets lists the targets sink stored a reference for (any agent),
// sorted.
func (s *State) RefTargets(sink string) []string {
	sec, err := s.ccc()
	if err != nil {
		return nil
	}
	var out []string
	for t := range sec.Refs[sink] {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
