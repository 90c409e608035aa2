package capture

// Transcript is what an agent's transcript reader (agent.TranscriptReader)
// finds in it, newest first.
type Transcript struct {
	// Todos is the newest checklist call's list (Claude Code's TodoWrite);
	// nil when there is none.
	Todos *List
	// Files are the paths of the newest file edits, newest first, each
	// once, a few at most.
	Files []string
	// LastLine is the last line of the newest assistant text.
	LastLine string
	// LastText is the text of the newest assistant record, whole, wherever
	// it is: what the stop hook looks for TASK_COMPLETE in.
	LastText string
}
