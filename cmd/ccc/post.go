package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

// PostOptions is `ccc post` as parsed.
type PostOptions struct {
	Dir      string
	BodyFile string
	Issue    string
	Agent    string
	Timeout  time.Duration
	JSON     bool
	Trackers TrackerFlags
}

// NewCmdPost builds `ccc post`.
func NewCmdPost(f *Factory, dir *string, runF func(*PostOptions) error) *cobra.Command {
	opts := &PostOptions{}
	cmd := &cobra.Command{
		Use:   "post",
		Short: "Upsert this agent's status comment from CI, without a progress session",
		Long: `Deliver one status to every configured tracker: the body of --body-file
(- for stdin) as it stands, or else the status rendered from the project's
.ccc-progress.md. The progress file is not changed; ccc writes only its
bookkeeping: the tracker references in .ccc-state.json, and under .ccc/ its
lock files, backups and, when a sink fails, the outbox entry that ccc sync
delivers later (on a CI runner that is discarded, the next job's post
supersedes it). Add .ccc/ to .gitignore. The report and --json are
checkpoint's, with one step; the first line says how many trackers got the
status ("Posted to 2 of 2 trackers.").

Sinks: --sinks, else $CCC_SINKS, else the sinks: section of
.ccc-preferences.yaml (--github adds GitHub to it), else Linear when
LINEAR_API_KEY is set and GitHub inside GitHub Actions or with --github.
Inside GitHub Actions the report and the body are appended to
$GITHUB_STEP_SUMMARY, and skipped or failed sinks are flagged with
::warning:: and ::error:: workflow commands on stderr.

The writer (each owns one comment per issue or pull request) is --agent,
else $CCC_AGENT, else inside GitHub Actions the job's id ($GITHUB_JOB, made
a safe name; a job called main posts as ci-main), else ci. It is never the
session's own agent, main, unless named: a CI report gets its own comment
and leaves the session's checkpoint comment alone. Jobs of one matrix share
a job id: give each leg its own --agent.` + exitStatusHelp(
			"0  every sink delivered, or had nothing new to deliver, or skipped",
			"3  a sink failed",
			"1  nothing could run (no body, unreadable project, broken .ccc-progress.md)",
			"2  usage error"),
		Example: `  # in a GitHub Actions job (GITHUB_TOKEN and the event give the PR)
  ccc post --body-file report.md

  # a Linear issue and a pull request at once
  ccc post --issue CIA-12 --github acme/app#34 --sinks linear,github

  # the project's progress, as JSON
  ccc post --json

  # update the session's own comment instead of a CI one
  ccc post --agent main`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if err := validateTargets(&opts.Issue, opts.Trackers); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return postRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.BodyFile, "body-file", "", "file whose content is the comment body (- for stdin; default: the status from .ccc-progress.md)")
	fl.StringVar(&opts.Issue, "issue", "", "the Linear issue, KEY-123 (any case: cia-12 is CIA-12)")
	fl.StringVar(&opts.Agent, "agent", "", "this writer's name; each agent owns one status comment (default $CCC_AGENT, else the GitHub Actions job id, else ci)")
	durationVar(fl, &opts.Timeout, "timeout", 30*time.Second, "deadline for the delivery, retries included")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as one JSON object on stdout")
	addTrackerFlags(fl, &opts.Trackers)
	return cmd
}

func postRun(ctx context.Context, f *Factory, opts *PostOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	cp, err := f.newCheckpoint(root, checkpoint.Post, runFlags{Agent: opts.Agent, Timeout: opts.Timeout, Trackers: opts.Trackers})
	if err != nil {
		return err
	}
	cp.Issue = opts.Issue
	cp.Waiting = f.waiting(opts.JSON)
	switch opts.BodyFile {
	case "":
		if err := cp.LoadProgress(); err != nil {
			return err
		}
		if cp.Doc == nil {
			return fmt.Errorf("nothing to post: no %s in %s (pass --body-file)", progress.FileName, root)
		}
	default:
		body, err := readBody(f.IO.In, opts.BodyFile)
		if err != nil {
			return err
		}
		if err := cp.LoadProgress(); err != nil {
			// The body stands alone; the state is only for the references.
			cp.Warnings = append(cp.Warnings, err.Error())
		}
		cp.Tracker.Body = body
		switch {
		case f.env().GitHub.Actions && f.env().GitHub.StepSummary != "":
			cp.Tracker.FullText = "the job summary"
		case opts.BodyFile == "-":
			cp.Tracker.FullText = "the text piped to ccc post"
		default:
			cp.Tracker.FullText = opts.BodyFile
		}
	}
	report := checkpoint.Run(ctx, cp, checkpoint.Post.Steps(cp))
	return f.finish(report, "ccc post", opts.JSON, false)
}

func readBody(stdin io.Reader, name string) (string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
	} else {
		data, err = projectfs.ReadProjectFile("", name, projectfs.MaxBodySize)
	}
	if err != nil {
		return "", fmt.Errorf("--body-file: %w", err)
	}
	body := strings.TrimSpace(string(data))
	if body == "" {
		return "", fmt.Errorf("--body-file %s is empty", name)
	}
	return body, nil
}
