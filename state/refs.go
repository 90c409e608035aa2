package state

// HasRefs reports whether ccc ever stored a reference for sink in this
// state: when it has not, keys such as checkpointCommentId were written by
// other tools (CCC's own commands) and describe a comment ccc may adopt.
func (s *State) HasRefs(sink string) bool {
	sec, err := s.ccc()
	return err == nil && len(sec.Refs[sink]) > 0
}
