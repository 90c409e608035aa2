package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// RecordWriter stores one imported record (its JSON is data) and returns
// the path it went to; with dryRun it writes nothing and returns the path
// it would write.
type RecordWriter func(ctx context.Context, root string, im *Imported, data []byte, now time.Time, dryRun bool) (string, error)

// Result is one file's outcome, as `ccc import --json` prints it.
type Result struct {
	Source       string          `json:"source"`
	Format       string          `json:"format,omitempty"`
	Agent        string          `json:"agent,omitempty"`
	RecordPath   string          `json:"recordPath,omitempty"`
	Record       json.RawMessage `json:"record,omitempty"`
	ProgressPath string          `json:"progressPath,omitempty"`
	Progress     string          `json:"progress,omitempty"`
	Warnings     []string        `json:"warnings,omitempty"`
	Error        *ResultError    `json:"error,omitempty"`
}

// ResultError is why a file was not imported, with the place of a syntax
// error.
type ResultError struct {
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// FileOptions are ImportFile's choices, the same for every file of one
// import.
type FileOptions struct {
	// Agent is for files that name none ("": the file's base name).
	Agent  string
	DryRun bool
	// Write stores the record; nil is WriteRecord.
	Write RecordWriter
	Now   time.Time
	// ProgressPath is the project's progress file, created from the first
	// file imported when it does not exist.
	ProgressPath string
}

// ImportFile imports one file into the project at root; a failure is
// reported in the result, and nothing is written for that file. While
// *needProgress is true the file's progress document also creates the
// project's progress file, and the flag is cleared.
func ImportFile(ctx context.Context, root, file string, opts FileOptions, needProgress *bool) Result {
	write, now, progressPath := opts.Write, opts.Now, opts.ProgressPath
	if write == nil {
		write = WriteRecord
	}
	res := Result{Source: file}
	fail := func(err error) Result {
		res.Error = &ResultError{Message: err.Error()}
		var ie *Error
		if errors.As(err, &ie) {
			res.Error.Line, res.Error.Column = ie.Line, ie.Col
		}
		return res
	}
	if fi, err := os.Stat(file); err == nil && fi.Size() > MaxSize {
		return fail(TooBig(file, fi.Size())) // not read at all
	}
	// The file is often a repository's own: never a FIFO or a device.
	data, err := projectfs.ReadProjectFile("", file, MaxSize)
	if err != nil {
		return fail(fmt.Errorf("import: %w", err))
	}
	im, err := Import(file, data, Options{Agent: opts.Agent, Now: now})
	if err != nil {
		return fail(err)
	}
	rec, err := im.RecordJSON()
	if err != nil {
		return fail(err)
	}
	// Never write a record ccc itself could not read back.
	if _, _, err := records.Decode(file, rec); err != nil {
		return fail(fmt.Errorf("import: %s: the record built is not valid: %w", file, err))
	}
	res.Format, res.Agent, res.Record, res.Warnings = string(im.Format), im.Agent, rec, im.Warnings
	if res.RecordPath, err = write(ctx, root, im, rec, now, opts.DryRun); err != nil {
		return fail(err)
	}
	if !*needProgress {
		return res
	}
	md := im.Progress.Render()
	if !opts.DryRun {
		if err := createProgress(ctx, root, progressPath, md); err != nil {
			if errors.Is(err, projectfs.ErrChanged) {
				res.Warnings = append(res.Warnings, progress.FileName+" appeared meanwhile; left as it is")
				*needProgress = false
				return res
			}
			return fail(fmt.Errorf("import: %s: %w", progress.FileName, err))
		}
	}
	*needProgress = false
	res.ProgressPath, res.Progress = progressPath, string(md)
	return res
}

// createProgress writes a new progress file under the project lock; one
// that appeared since the check is left alone (projectfs.ErrChanged).
func createProgress(ctx context.Context, root, path string, md []byte) error {
	unlock, err := projectfs.Lock(ctx, root)
	if err != nil {
		return err
	}
	defer unlock()
	return projectfs.ReplaceFile(path, nil, md, 0o644)
}

// WriteRecord puts an imported record where records keeps it: the agent's
// current record, or, like a checkpoint that finishes, the complete
// archive or failed/. A record it replaces is kept in the agent's history
// (and as a backup).
func WriteRecord(ctx context.Context, root string, im *Imported, _ []byte, now time.Time, dryRun bool) (string, error) {
	dir, err := records.Dir(ctx, root)
	if err != nil {
		return "", err
	}
	if dryRun {
		return records.StorePath(dir, &im.Record), nil
	}
	path, err := records.Put(ctx, dir, &im.Record, now)
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	return path, nil
}
