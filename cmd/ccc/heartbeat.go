package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// HeartbeatOptions is `ccc heartbeat` as parsed.
type HeartbeatOptions struct {
	Dir   string
	Agent string
	JSON  bool
}

// NewCmdHeartbeat builds `ccc heartbeat`.
func NewCmdHeartbeat(f *Factory, dir *string, runF func(*HeartbeatOptions) error) *cobra.Command {
	opts := &HeartbeatOptions{}
	cmd := &cobra.Command{
		Use:   "heartbeat",
		Short: "Tell ccc status this agent is alive, without a checkpoint",
		Long: `Record that the agent is alive: update only heartbeat.lastBeat and
nextCheckpointExpected in its record (.ccc/checkpoints/<agent>.json). The
progress and state files, updatedAt and the record's history are left alone,
so it is cheap enough to run every few minutes from a hook or a loop; ccc
status then keeps the agent ACTIVE between checkpoints. Every other key of
the record keeps its value and its place; a record without an interval
(heartbeat.intervalSeconds 0, e.g. an imported one) expects the next
checkpoint 15 minutes later, and the interval is still not stored.

The agent needs a record first: ccc checkpoint writes it.` + exitStatusHelp(
			"0  the heartbeat was recorded",
			"1  the agent has no record yet, or it cannot be read or written",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc heartbeat --agent a
  while sleep 300; do ccc heartbeat --agent a; done &`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			opts.Agent = config.Agent(opts.Agent, f.env())
			if err := records.ValidAgent(opts.Agent); err != nil {
				return &usageError{err}
			}
			if runF != nil {
				return runF(opts)
			}
			return heartbeatRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent (default $CCC_AGENT, else main)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the heartbeat as JSON")
	return cmd
}

func heartbeatRun(ctx context.Context, f *Factory, opts *HeartbeatOptions) error {
	_, dir, err := f.recordsDir(ctx, opts.Dir)
	if err != nil {
		return err
	}
	r, err := records.Heartbeat(ctx, dir, opts.Agent, f.Now())
	if errors.Is(err, records.ErrNoRecord) {
		return fmt.Errorf("heartbeat: agent %s has no record in %s yet: run ccc checkpoint --agent %s first", opts.Agent, dir, opts.Agent)
	}
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if root, err := f.root(ctx, opts.Dir); err == nil {
		f.keepAliveAs(ctx, root, r.Agent, "Still working (heartbeat).")
	}
	if opts.JSON {
		return ui.JSON(f.IO.Out, struct {
			Agent                  string    `json:"agent"`
			ID                     string    `json:"id"`
			LastBeat               time.Time `json:"lastBeat"`
			NextCheckpointExpected time.Time `json:"nextCheckpointExpected"`
		}{r.Agent, r.ID, r.Heartbeat.LastBeat, r.NextCheckpointExpected})
	}
	fmt.Fprintf(f.IO.ErrOut, "Heartbeat %s: alive at %s; next checkpoint expected by %s.\n",
		r.Agent, r.Heartbeat.LastBeat.Format(time.RFC3339), r.NextCheckpointExpected.Format(time.RFC3339))
	return nil
}
