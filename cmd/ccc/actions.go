package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/markdown"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// finish prints a report (JSON on stdout, or lines on stderr and the prompt
// on stdout), tells GitHub Actions about it when running there, and turns
// its outcome into the exit status.
func (f *Factory) finish(r checkpoint.Report, title string, asJSON, withPrompt bool) error {
	if asJSON {
		if err := ui.JSON(f.IO.Out, r); err != nil {
			return err
		}
	} else {
		printReport(f.IO, r)
		if withPrompt && r.Prompt != "" {
			fmt.Fprint(f.IO.Out, progress.PromptBox(r.Prompt))
		}
	}
	if f.env().GitHub.Actions {
		annotate(f.IO.ErrOut, r)
		if path := f.env().GitHub.StepSummary; path != "" {
			if err := appendSummary(path, title, r); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Warning: step summary: %v\n", err)
			}
		}
	}
	return reportExit(r)
}

// annotate prints GitHub Actions workflow commands: a warning for each
// skipped sink, an error for each failed sink or step. They go to stderr so
// that --json keeps stdout one clean object, and through the run's redactor:
// annotations are public on a public repository.
func annotate(w io.Writer, r checkpoint.Report) {
	escapeData := func(s string) string { return escapeData(r.Redact(s)) }
	for _, s := range r.Steps {
		for _, sr := range s.Sinks {
			switch sr.Action {
			case sinks.Skipped:
				fmt.Fprintf(w, "::warning title=%s::%s\n", escapeProperty("ccc: "+sr.Title+" skipped"), escapeData(sr.Error))
			case sinks.Failed:
				fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty("ccc: "+sr.Title+" failed"), escapeData(sr.Error))
			}
		}
		if s.Status == checkpoint.Failed && len(s.Sinks) == 0 {
			fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty("ccc: "+s.Name+" failed"), escapeData(s.Message))
		}
	}
}

// appendSummary adds the report and the delivered body to the job's step
// summary, keeping what earlier steps wrote there. The summary is public on a
// public repository: all of it goes through the run's redactor.
func appendSummary(path, title string, r checkpoint.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n```\n%s```\n", title, r.String())
	for _, s := range r.Steps {
		for _, sr := range s.Sinks {
			switch {
			case strings.HasPrefix(sr.URL, "https://"), strings.HasPrefix(sr.URL, "http://"):
				fmt.Fprintf(&b, "\n- %s: [%s](%s) (%s)", sr.Title, sr.Target, sr.URL, sr.Action)
			case sr.URL != "": // a file on the runner: no link a reader could follow
				fmt.Fprintf(&b, "\n- %s: %s (%s)", sr.Title, sr.Target, sr.Action)
			}
		}
	}
	if r.StatusBody != "" {
		// A body that ends inside a fence would take </details> and every
		// later step's summary into its code block.
		fmt.Fprintf(&b, "\n\n<details><summary>Status body</summary>\n\n%s\n\n</details>\n", markdown.CloseOpen(r.StatusBody))
	}
	b.WriteString("\n")
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fh.WriteString(r.Redact(b.String())); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// escapeData escapes a workflow command's message as the runner expects.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
