package hook

import (
	"errors"
	"fmt"
	"os"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// ErrNoTranscript is a transcript_path with no file behind it.
var ErrNoTranscript = errors.New("does not exist")

// transcriptRead is a hook's one read of the agent's transcript, shared by
// its capture and its stop decision.
type transcriptRead struct {
	done  bool
	tr    capture.Transcript
	err   error
	reads int // how many times the file was read (tests)
}

// withTranscript makes env's readers share one read of the transcript.
func (e Env) withTranscript() Env {
	if e.transcript == nil {
		e.transcript = &transcriptRead{}
	}
	return e
}

// readTranscript reads the input's transcript through its agent
// (agent.TranscriptReader), once per hook when env shares reads: the first
// reader's wantTodos decides. An agent without one, or no path, reads
// nothing.
func (e Env) readTranscript(in Input, wantTodos bool) (capture.Transcript, bool, error) {
	r, ok := agentOf(in).(agent.TranscriptReader)
	if !ok || in.TranscriptPath == "" {
		return capture.Transcript{}, false, nil
	}
	if e.transcript != nil && e.transcript.done {
		return e.transcript.tr, true, e.transcript.err
	}
	tr, err := r.ReadTranscript(in.TranscriptPath, wantTodos)
	if e.transcript != nil {
		e.transcript.done, e.transcript.tr, e.transcript.err = true, tr, err
		e.transcript.reads++
	}
	return tr, true, err
}

// LastOutput is the assistant's last output [c]: last_assistant_message when
// it is a non-empty string, else the text of the last assistant record of
// the transcript. A missing path or record is "". A path with no file is ""
// and an error wrapping ErrNoTranscript, for the caller to report: the stop
// then counts as a retry, and nobody would know why.
func LastOutput(in Input) (string, error) { return Env{}.lastOutput(in) }

// lastOutput is LastOutput from the hook's shared read of the transcript.
// Only an agent with a transcript reader has its log read: Codex and Gemini
// logs are not transcripts, and both send the reply itself
// (last_assistant_message, prompt_response).
func (e Env) lastOutput(in Input) (string, error) {
	if in.LastAssistantMessage != "" {
		return in.LastAssistantMessage, nil
	}
	tr, read, err := e.readTranscript(in, false)
	if !read {
		return "", nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("transcript_path %s %w", in.TranscriptPath, ErrNoTranscript)
	}
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return tr.LastText, nil
}
