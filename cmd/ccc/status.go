package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// StatusOptions is `ccc status` as parsed.
type StatusOptions struct {
	Dir      string
	JSON     bool
	Markdown bool
	// Output is the file --markdown writes ("" for stdout).
	Output   string
	Watch    bool
	Interval time.Duration
}

// NewCmdStatus builds `ccc status`, the supervisor's table of agents.
func NewCmdStatus(f *Factory, dir *string, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every agent of the repository: task, progress, last update, health",
		Long: `Show one row per agent that has a checkpoint record in the repository's
shared .ccc/checkpoints (every worktree of the repository sees the same
agents): agent, issue and task, progress (N/M and %), the age of its last
checkpoint, its status, its health, and the tracker updates queued for it.

Health is judged when the command runs, from the record's last checkpoint or
heartbeat (ccc heartbeat), whichever is later:
  ACTIVE   within agents.warn_after (preference, default 30m)
  WARNING  quiet for longer than agents.warn_after: may be slow
  STALE    quiet for longer than agents.stale_after (default 60m): likely
           crashed; ccc takeover hands its work to another agent
  DRIFTED  added when the repository moved since the record: the HEAD of the
           agent's branch changed, or the branch is no longer checked out
  UNKNOWN  its record cannot be read (corrupt, or a newer schemaVersion):
           the row gives the reason; fix or restore the file (ccc restore)
A complete or failed agent has no health ("—"); a failed agent keeps its
row, with status failed, until ccc cleanup removes its record from
.ccc/checkpoints/failed/ (after --failed-max-age). The thresholds are the
preferences of the main worktree, where the records live, whichever
worktree the command runs in.

The table has colour and icons on a terminal. --json prints the same as one
object; --markdown prints the STATUS.md table (Agent | Task | Progress |
Last Update | Status | Health), its columns padded to line up in the raw
text too, or writes it atomically to --output FILE.
--watch redraws the table in place every --interval on a terminal, and
prints it again each time otherwise, until interrupted.

CCC_NOW (RFC 3339) sets the clock: a testing aid.` + exitStatusHelp(
			"0  no agent is STALE or UNKNOWN (--watch: stopped by a signal)",
			"4  at least one agent is STALE",
			"1  no agent is STALE but a record cannot be read (UNKNOWN), or the",
			"   project cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc status
  ccc status --json | jq -r '.agents[] | select(.health == "STALE") | .agent'
  ccc status --markdown --output progress/STATUS.md
  ccc status --watch`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case opts.JSON && opts.Markdown:
				return &usageError{errors.New("--json and --markdown are exclusive")}
			case opts.Output != "" && !opts.Markdown:
				return &usageError{errors.New("--output needs --markdown")}
			case opts.Watch && (opts.JSON || opts.Markdown):
				return &usageError{errors.New("--watch shows the table; it does not combine with --json or --markdown")}
			case opts.Interval <= 0:
				return &usageError{errors.New("--interval must be longer than zero")}
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print the agents as JSON")
	fl.BoolVar(&opts.Markdown, "markdown", false, "print the STATUS.md Markdown table")
	fl.StringVarP(&opts.Output, "output", "o", "", "with --markdown: write the table to FILE (atomically) instead of stdout")
	fl.BoolVarP(&opts.Watch, "watch", "w", false, "redraw the table until interrupted")
	durationVar(fl, &opts.Interval, "interval", 5*time.Second, "with --watch: time between refreshes")
	return cmd
}

// StatusReport is what `ccc status --json` prints.
type StatusReport struct {
	Now        time.Time             `json:"now"`
	Dir        string                `json:"dir"`
	WarnAfter  string                `json:"warnAfter"`
	StaleAfter string                `json:"staleAfter"`
	Agents     []records.AgentStatus `json:"agents"`
	// Stale counts the STALE agents (exit status 4 when any).
	Stale int `json:"stale"`
	// Unknown counts the agents whose record cannot be read (exit status 1
	// when any and none is STALE).
	Unknown  int      `json:"unknown"`
	Warnings []string `json:"warnings"`
}

func statusRun(ctx context.Context, f *Factory, opts *StatusOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	tty := f.IO.OutTTY
	if opts.Watch {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return statusWatch(ctx, f, root, opts, tty, sleepCtx)
	}
	rep, err := collectStatus(ctx, f, root)
	if err != nil {
		return err
	}
	if err := printStatus(f, opts, rep, tty); err != nil {
		return err
	}
	switch {
	case rep.Stale > 0:
		return &exitError{code: ExitStale}
	case rep.Unknown > 0:
		return &exitError{code: ExitFailed, err: fmt.Errorf("status: %d agent record(s) cannot be read", rep.Unknown)}
	}
	return nil
}

// printStatus prints the report as --json, --markdown or the table ask.
func printStatus(f *Factory, opts *StatusOptions, rep StatusReport, tty bool) error {
	if !opts.JSON {
		for _, w := range rep.Warnings {
			fmt.Fprintln(f.IO.ErrOut, "Warning: "+w)
		}
	}
	switch {
	case opts.JSON:
		if err := ui.JSON(f.IO.Out, rep); err != nil {
			return err
		}
	case opts.Markdown:
		md := statusMarkdown(rep)
		if opts.Output == "" {
			if _, err := io.WriteString(f.IO.Out, md); err != nil {
				return err
			}
			break
		}
		path := opts.Output
		if !filepath.IsAbs(path) {
			cwd, err := f.Getwd()
			if err != nil {
				return fmt.Errorf("status: %w", err)
			}
			path = filepath.Join(cwd, path)
		}
		if err := projectfs.WriteFileAtomic(path, []byte(md), 0o644); err != nil {
			return fmt.Errorf("status: write %s: %w", opts.Output, err)
		}
		fmt.Fprintf(f.IO.ErrOut, "Wrote %s (%d agent(s)).\n", opts.Output, len(rep.Agents))
	default:
		if len(rep.Agents) == 0 {
			fmt.Fprintf(f.IO.ErrOut, "No agent records in %s.\n", rep.Dir)
			break
		}
		colour := tty && !f.env().NoColor
		if _, err := io.WriteString(f.IO.Out, statusTable(rep, colour)); err != nil {
			return err
		}
		if rep.Stale > 0 {
			fmt.Fprintln(f.IO.ErrOut, "Hint: ccc takeover AGENT --as NEW hands a stale agent's work to a new one.")
		}
	}
	return nil
}

// collectStatus reads every agent's record and queued deliveries at f.Now()
// (records.Collect), as --json prints them.
func collectStatus(ctx context.Context, f *Factory, root string) (StatusReport, error) {
	st, err := records.Collect(ctx, root, f.Now())
	if err != nil {
		return StatusReport{}, err
	}
	rep := StatusReport{
		Now: st.Now, Dir: st.Dir,
		WarnAfter: age(st.Thresholds.WarnAfter), StaleAfter: age(st.Thresholds.StaleAfter),
		Agents: st.Agents, Stale: st.Stale, Unknown: st.Unknown, Warnings: st.Warnings,
	}
	redactStatus(&rep)
	return rep, nil
}

// redactStatus redacts the text of every record in rep, before anything
// prints or cuts it: records and the outbox live in .ccc, which a
// repository can commit, and --json prints them whole.
func redactStatus(rep *StatusReport) {
	r := func(s *string) { *s, _ = redact.Text(*s) }
	for i := range rep.Agents {
		a := &rep.Agents[i]
		for _, s := range []*string{&a.Agent, &a.ID, &a.Issue, &a.Task, &a.Drift, &a.Error, &a.Queued.LastError} {
			r(s)
		}
		for j := range a.Subagents {
			r(&a.Subagents[j].LastMessage)
		}
	}
	for i := range rep.Warnings {
		r(&rep.Warnings[i])
	}
}

var healthStyle = map[string]struct{ icon, colour string }{
	string(records.Active):  {"✓", "32"},
	string(records.Warning): {"!", "33"},
	string(records.Stale):   {"X", "31"},
	"DRIFTED":               {"~", "35"},
	string(records.Unknown): {"?", "31"},
}

// statusTable renders the rows as an aligned table; colour adds icons and
// colours to the health column.
func statusTable(rep StatusReport, colour bool) string {
	now := rep.Now
	rows := [][]string{{"AGENT", "ISSUE", "TASK", "PROGRESS", "UPDATED", "STATUS", "HEALTH", "QUEUED"}}
	var notes []string
	for _, a := range rep.Agents {
		var levels []string
		if a.Health != "" {
			levels = append(levels, a.Health)
		}
		if a.Drifted {
			levels = append(levels, "DRIFTED")
			notes = append(notes, fmt.Sprintf("%s: DRIFTED — %s", a.Agent, a.Drift))
		}
		if a.Error != "" {
			notes = append(notes, fmt.Sprintf("%s: UNKNOWN — %s", a.Agent, a.Error))
		}
		health := "—"
		if len(levels) > 0 {
			health = ""
			for i, l := range levels {
				if i > 0 {
					health += " "
				}
				if colour {
					st := healthStyle[l]
					l = ui.Colour(st.colour, st.icon+" "+l)
				}
				health += l
			}
		}
		rows = append(rows, []string{
			a.Agent, dash(a.Issue), dash(clip(a.Task, 40)), progressCell(a),
			updatedCell(a, now), dash(a.Status), health, queuedCell(a.Queued, now),
		})
		rows = append(rows, subagentRows(a, now)...)
	}
	var b strings.Builder
	b.WriteString(ui.Table(rows))
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// clip is s on one line, redacted, then cut to n runes.
func clip(s string, n int) string { return redact.Clip(strings.Join(strings.Fields(s), " "), n) }

func progressCell(a records.AgentStatus) string {
	if a.Total == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d %d%%", a.Completed, a.Total, a.Percent)
}

// updatedCell is the age of the last checkpoint, and of the last heartbeat
// when that is more recent.
func updatedCell(a records.AgentStatus, now time.Time) string {
	if a.UpdatedAt == nil {
		if a.LastBeat != nil {
			return "beat " + age(max(now.Sub(*a.LastBeat), 0))
		}
		return "—"
	}
	s := age(max(now.Sub(*a.UpdatedAt), 0))
	if a.LastBeat != nil && a.LastBeat.After(*a.UpdatedAt) {
		s += " (beat " + age(max(now.Sub(*a.LastBeat), 0)) + ")"
	}
	return s
}

func queuedCell(q records.QueuedStatus, now time.Time) string {
	if q.Count == 0 {
		return "—"
	}
	s := fmt.Sprintf("%d, oldest %s", q.Count, age(max(now.Sub(*q.Oldest), 0)))
	if q.LastError != "" {
		s += ": " + clip(q.LastError, 40)
	}
	return s
}

// statusMarkdown is seed 002's STATUS.md table, with a health column. Its
// columns line up in the raw text too: each cell is padded to its column's
// width, which a Markdown renderer ignores.
func statusMarkdown(rep StatusReport) string {
	rows := [][]string{{"Agent", "Task", "Progress", "Last Update", "Status", "Health"}}
	for _, a := range rep.Agents {
		progress := "—"
		if a.Total > 0 {
			progress = fmt.Sprintf("%d%%", a.Percent)
		}
		updated := "—"
		if a.UpdatedAt != nil {
			updated = minutesAgo(rep.Now.Sub(*a.UpdatedAt))
		}
		health := dash(a.Health)
		if a.Drifted {
			health += " DRIFTED"
		}
		rows = append(rows, []string{mdCell(a.Agent), mdCell(dash(a.Issue)), progress, updated, mdCell(dash(a.Status)), health})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ui.VisibleLen(c))
		}
	}
	var b strings.Builder
	b.WriteString("## Active Checkpoints\n\n")
	line := func(r []string) {
		for i, c := range r {
			b.WriteString("| " + c + strings.Repeat(" ", widths[i]-ui.VisibleLen(c)+1))
		}
		b.WriteString("|\n")
	}
	line(rows[0])
	for _, w := range widths {
		b.WriteString("|" + strings.Repeat("-", w+2))
	}
	b.WriteString("|\n")
	for _, r := range rows[1:] {
		line(r)
	}
	return b.String()
}

// minutesAgo says an age the way STATUS.md does: "2 min ago".
func minutesAgo(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days ago", int(d.Hours())/24)
	}
}

// mdCell keeps a value from breaking the table.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// statusWatch redraws the table every interval until ctx ends. On a
// terminal it redraws in place — cursor home, each line cleared to its end,
// the rest of the screen cleared last — so the table never blanks between
// frames; otherwise each frame is printed after the last.
func statusWatch(ctx context.Context, f *Factory, root string, opts *StatusOptions, tty bool,
	wait func(context.Context, time.Duration) error) error {
	colour := tty && !f.env().NoColor
	if tty {
		fmt.Fprint(f.IO.Out, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, start on a clean screen
		defer fmt.Fprint(f.IO.Out, "\x1b[?25h")
	}
	for {
		var frame bytes.Buffer
		now := f.Now()
		fmt.Fprintf(&frame, "ccc status — %s — every %s, Ctrl-C to stop\n\n", now.UTC().Format("2006-01-02 15:04:05Z"), opts.Interval)
		rep, err := collectStatus(ctx, f, root)
		switch {
		case err != nil:
			fmt.Fprintf(&frame, "Error: %v\n", err)
		case len(rep.Agents) == 0:
			fmt.Fprintf(&frame, "No agent records in %s.\n", rep.Dir)
		default:
			frame.WriteString(statusTable(rep, colour))
		}
		for _, w := range rep.Warnings {
			fmt.Fprintln(&frame, "Warning: "+w)
		}
		if tty {
			var screen strings.Builder
			screen.WriteString("\x1b[H")
			for _, line := range strings.SplitAfter(frame.String(), "\n") {
				if line == "" {
					continue
				}
				screen.WriteString(strings.TrimSuffix(line, "\n") + "\x1b[K\n")
			}
			screen.WriteString("\x1b[J")
			fmt.Fprint(f.IO.Out, screen.String())
		} else {
			frame.WriteString("\n")
			if _, err := f.IO.Out.Write(frame.Bytes()); err != nil {
				return err
			}
		}
		if err := wait(ctx, opts.Interval); err != nil {
			return nil // interrupted: the normal way to stop watching
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// subagentRows are an agent's subagents as child rows: type and id, the
// last message, the age, running or stopped.
func subagentRows(a records.AgentStatus, now time.Time) [][]string {
	var rows [][]string
	for _, s := range a.Subagents {
		id := s.ID
		if len(id) > 8 {
			id = id[:8]
		}
		rows = append(rows, []string{"└ " + dash(s.Type) + " " + id, "", dash(clip(strings.Join(strings.Fields(s.LastMessage), " "), 40)), "",
			age(now.Sub(s.UpdatedAt)), s.Status, "", ""})
	}
	return rows
}
