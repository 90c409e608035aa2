package linearagent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Linear shows a session's plan and activities in a side panel: a long
// task list or a status pasted whole into an action would drown it.
const (
	// MaxPlanItems is how many items a plan holds at most, the last one
	// "+N more" when tasks were left out.
	MaxPlanItems = 50
	// MaxPlanItem is how many runes an item's content holds at most.
	MaxPlanItem = 200
	// MaxResult is how many runes an action's result holds at most.
	MaxResult = 1000
)

// step is one entry of a session's plan, as Linear's "Agent interaction"
// guide shapes it: {content, status} with status pending, inProgress,
// completed or canceled.
type step struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// plan mirrors doc's tasks: completed → completed, the current one →
// inProgress, remaining → pending; a task of the last plan (prev) that is
// in none of them was dropped → canceled, and stays so while it is in no
// list. texts are the plan's tasks, the canceled ones included, for the
// next plan's prev. Past MaxPlanItems, the last item says how many more.
func plan(doc *progress.Document, prev []string) (steps []step, texts []string) {
	add := func(t progress.Task, status string) {
		text := firstLine(t.Text)
		steps = append(steps, step{Content: text, Status: status})
		texts = append(texts, text)
	}
	for _, t := range doc.Completed {
		add(t, "completed")
	}
	if doc.Current != nil {
		if doc.Current.Done {
			add(*doc.Current, "completed")
		} else {
			add(*doc.Current, "inProgress")
		}
	}
	for _, t := range doc.Remaining {
		if t.Done {
			add(t, "completed")
		} else {
			add(t, "pending")
		}
	}
	for _, p := range prev {
		// A canceled task past the cap is forgotten: the memo stays
		// bounded however many tasks come and go.
		if !slices.Contains(texts, p) && len(steps) < MaxPlanItems {
			steps = append(steps, step{Content: p, Status: "canceled"})
			texts = append(texts, p)
		}
	}
	if n := len(steps); n > MaxPlanItems {
		more := n - (MaxPlanItems - 1)
		steps = append(steps[:MaxPlanItems-1], step{Content: fmt.Sprintf("+%d more", more), Status: "pending"})
	}
	return steps, texts
}

func planHash(steps []step) string {
	data, _ := json.Marshal(steps)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// short is s redacted, then cut to n runes with an ellipsis: cut first, a
// credential across the cut would lose its shape and keep its first part.
func short(s string, n int) string { return redact.Clip(strings.TrimSpace(s), n) }

// position is "task 3 of 7 — <current>" for the checkpoint's action.
func position(doc *progress.Document) string {
	s := fmt.Sprintf("task %d of %d", doc.TaskN(), doc.TaskM())
	if doc.Current != nil {
		s += " — " + short(firstLine(doc.Current.Text), 120)
	}
	return s
}

// openBlockers are the blockers not resolved, as "description (unblocked
// by: condition)".
func openBlockers(doc *progress.Document) []string {
	var out []string
	for _, b := range doc.Blockers {
		if b.Checkbox && b.Checked {
			continue
		}
		s := b.Description
		if b.UnblockedBy != "" {
			s += " (unblocked by: " + b.UnblockedBy + ")"
		}
		out = append(out, s)
	}
	return out
}

// failure is the reason of an open "FAILED: reason" blocker (ccc
// checkpoint --fail), "" when there is none.
func failure(doc *progress.Document) string {
	for _, b := range doc.Blockers {
		if !(b.Checkbox && b.Checked) && strings.HasPrefix(b.Description, "FAILED:") {
			return strings.TrimSpace(strings.TrimPrefix(b.Description, "FAILED:"))
		}
	}
	return ""
}

// summary is the response of a finished session: what was done, the
// decisions, the links.
func summary(doc *progress.Document, links []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "All %d tasks complete.\n", doc.TaskM())
	for _, t := range doc.Completed {
		fmt.Fprintf(&b, "- %s\n", short(firstLine(t.Text), 200))
	}
	if len(doc.Decisions) > 0 {
		b.WriteString("\nDecisions:\n")
		for _, d := range doc.Decisions {
			fmt.Fprintf(&b, "- %s\n", short(d.What, 200))
		}
	}
	for _, l := range links {
		fmt.Fprintf(&b, "\n%s", l)
	}
	return strings.TrimSpace(b.String())
}

// result is the action's result: the next action and the last decision,
// short.
func result(doc *progress.Document) string {
	var parts []string
	if doc.NextAction != "" {
		parts = append(parts, "Next: "+short(doc.NextAction, 200))
	}
	if n := len(doc.Decisions); n > 0 {
		parts = append(parts, "Decided: "+short(doc.Decisions[n-1].What, 200))
	}
	return strings.Join(parts, "\n")
}
