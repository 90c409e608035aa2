// Package checkpoint is the fail-forward checkpoint pipeline: the steps of
// the protocol, the two profiles that order them, and the report.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Step is one step of the pipeline. Run returns nil on success, a skip
// (sinks.Skip: one skip error for steps and sinks) when there was nothing to
// do, or an error; whatever it returns, the next step runs.
type Step interface {
	fmt.Stringer
	Run(ctx context.Context, cp *Context) error
}

// consequence is an optional interface: what a step's failure means for the
// user, printed after the cause ("status not persisted to issue tracker").
type consequence interface {
	Consequence() string
}

// unlisted is an optional interface: a step whose work serves the steps
// around it (the agent's record, the outbox drain) gets no line in the
// report and does not count in its totals. A failure it cannot help is
// said in a warning.
type unlisted interface {
	unlisted()
}

// Failure is a step error with a short cause for the report line, for when
// the error itself is too long or too technical to print in parentheses.
type Failure struct {
	Cause string
	Err   error
	// Consequence overrides the step's usual consequence.
	Consequence string
}

func (f *Failure) Error() string {
	if f.Err == nil {
		return f.Cause
	}
	return f.Cause + ": " + f.Err.Error()
}

func (f *Failure) Unwrap() error { return f.Err }

// Status is a step's outcome.
type Status string

const (
	OK      Status = "ok"
	Skipped Status = "skipped"
	Failed  Status = "failed"
)

// Result is one step's line in the report.
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Message is the skip reason, the failure cause, or what the step did.
	Message     string `json:"message"`
	Consequence string `json:"consequence,omitempty"`
	// Sinks has the tracker step's outcome per sink.
	Sinks      []SinkResult  `json:"sinks,omitempty"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
}

// run runs one step with the cross-cutting work around it: timing, panic
// recovery, and turning its error into a Result.
func run(ctx context.Context, s Step, cp *Context) (res Result, err error) {
	res.Name = s.String()
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res.Status, res.Message = Failed, fmt.Sprintf("panic: %v", p)
			cp.debugf("%s panicked: %v\n%s", res.Name, p, debug.Stack())
		}
		if res.Status == Failed && res.Consequence == "" {
			if c, ok := s.(consequence); ok {
				res.Consequence = c.Consequence()
			}
		}
		res.Duration = time.Since(start)
		res.DurationMS = res.Duration.Milliseconds()
	}()
	err = s.Run(ctx, cp)
	// A note belongs to its step, and only to a step that succeeded.
	note := cp.takeNote()
	res.Sinks, cp.sinkResults = cp.sinkResults, nil
	var skip *sinks.SkipError
	var fail *Failure
	switch {
	case err == nil:
		res.Status, res.Message = OK, note
	case errors.As(err, &skip):
		res.Status, res.Message = Skipped, skip.Reason
	case errors.As(err, &fail):
		res.Status, res.Message, res.Consequence = Failed, fail.Cause, fail.Consequence
		cp.debugf("%s: %v", res.Name, err)
	default:
		res.Status, res.Message = Failed, err.Error()
	}
	return res, err
}

// alongside marks a local step that may run while the remote steps right
// after it wait on the network: it reads nothing they write and they read
// nothing it writes (the agent's record).
type alongside interface {
	alongside()
}

// remote marks the steps that talk to trackers (the outbox drain, the
// tracker update): most of their time is a round trip.
type remote interface {
	remote()
}

func (recordStep) alongside() {}
func (drainStep) remote()     {}
func (trackerStep) remote()   {}

// Run runs every step in order, whatever the earlier ones returned, and
// reports on all of them. A run of alongside steps followed by a run of
// remote steps runs as two groups at once: the local writes (a record's
// copy, its fsyncs) overlap the tracker's round trip instead of adding to
// it (issue 26). Each group keeps its order, and the report its steps'.
func Run(ctx context.Context, cp *Context, steps []Step) Report {
	cp.persisted, cp.snapshot, cp.drained, cp.recorded, cp.stateWrote = persisted{}, snapshot{}, drained{}, nil, nil
	// Old backups are removed while the run goes on, and waited for before
	// it reports (projectfs.PruneLater).
	pruned := projectfs.PruneLater()
	r := Report{Profile: cp.Profile}
	add := func(s Step, res Result, err error) (stop bool) {
		if stop := stopReport(err); stop != nil {
			r = *stop
			r.Profile = cp.Profile
			return true
		}
		if _, ok := s.(persistStep); ok && !cp.persisted.saved {
			r.Unsaved = true
		}
		if _, ok := s.(unlisted); ok {
			if res.Status == Failed {
				cp.warnf("%s: %s", strings.ToLower(res.Name), res.Message)
			}
			return false
		}
		if res.Status != Failed {
			r.Succeeded++
		}
		r.Steps = append(r.Steps, res)
		return false
	}
	for i := 0; i < len(steps); {
		local, net := runOf[alongside](steps[i:]), 0
		if local > 0 {
			net = runOf[remote](steps[i+local:])
		}
		if net == 0 {
			res, err := run(ctx, steps[i], cp)
			if add(steps[i], res, err) {
				break
			}
			i++
			continue
		}
		group := steps[i : i+local+net]
		results, errs := cp.runAlongside(ctx, group[:local], group[local:])
		stopped := false
		for k, s := range group {
			if stopped = add(s, results[k], errs[k]); stopped {
				break
			}
		}
		if stopped {
			break
		}
		i += len(group)
	}
	for _, s := range steps {
		if _, ok := s.(unlisted); !ok {
			r.Total++
		}
	}
	if err := pruned(); err != nil {
		cp.warnf("old backups not removed (the next checkpoint retries): %v", err)
	}
	r.Prompt = cp.Prompt
	r.Warnings = cp.Warnings
	r.StatusBody = cp.StatusBody
	r.Outbox = cp.drained.results
	if cp.notice != "" {
		r.Notices = append(r.Notices, cp.notice)
	}
	r.redactor = cp.Redactor
	return r.redacted()
}

// runOf is how many steps at the start of steps are T's.
func runOf[T any](steps []Step) int {
	n := 0
	for _, s := range steps {
		if _, ok := s.(T); !ok {
			break
		}
		n++
	}
	return n
}

// runAlongside runs the local steps in this goroutine while the remote ones
// run in another, on a copy of the context that holds what they write: the
// state they save, the drain's result, the body they sent, their warnings.
// The copy's results are merged back once both are done. Debug output is
// serialised between the two.
func (cp *Context) runAlongside(ctx context.Context, local, net []Step) ([]Result, []error) {
	results, errs := make([]Result, len(local)+len(net)), make([]error, len(local)+len(net))
	if cp.Debug != nil {
		cp.Debug = &lockedWriter{w: cp.Debug}
		defer func(w io.Writer) { cp.Debug = w }(cp.Debug.(*lockedWriter).w)
	}
	nc := *cp
	nc.Warnings, nc.Alerts, nc.note, nc.sinkResults = nil, nil, "", nil
	var wg sync.WaitGroup
	wg.Go(func() {
		for k, s := range net {
			results[len(local)+k], errs[len(local)+k] = run(ctx, s, &nc)
		}
	})
	for k, s := range local {
		results[k], errs[k] = run(ctx, s, cp)
	}
	wg.Wait()
	cp.State, cp.stateWrote, cp.drained, cp.StatusBody = nc.State, nc.stateWrote, nc.drained, nc.StatusBody
	cp.stateReadOnly, cp.stateCorrupt = nc.stateReadOnly, nc.stateCorrupt
	cp.Warnings = append(cp.Warnings, nc.Warnings...)
	cp.Alerts = append(cp.Alerts, nc.Alerts...)
	return results, errs
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stopReport is the report of a run that a step's error ends with nothing
// written, nil for any other error.
func stopReport(err error) *Report {
	var usage *UsageError
	var broken *progress.BrokenError
	switch {
	case errors.As(err, &usage):
		// Not a step failure: the command line asked for something the
		// document cannot take, and nothing may be written for it.
		return &Report{Steps: []Result{}, Error: usage.Error()}
	case errors.As(err, &broken):
		// Whatever a later step did would report or commit a misreading
		// of the file (a conflict, "0 of 0 tasks, complete").
		return &Report{Steps: []Result{}, Broken: broken.Error()}
	}
	return nil
}
