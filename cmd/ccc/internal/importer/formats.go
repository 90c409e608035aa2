package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ccc-checkpoint/ccc/state/records"
)

// initiative converts seed 000's .claude/initiative.json: the progress map's
// milestones become the tasks, currentMilestone the one in progress.
func (d *draft) initiative(o *object) {
	r := &d.rec
	d.setTaskID(o, "name")
	d.field("Initiative", o.peekStr("name"))
	d.status(o, "status")
	d.current = o.str("currentMilestone")
	r.UpdatedAt = o.time("lastUpdated")
	if p := o.sub("progress"); p != nil {
		for _, k := range p.st.Keys() {
			var s string
			if !p.value(k, &s, "a milestone status string") {
				continue
			}
			if placeholderRe().MatchString(strings.TrimSpace(s)) {
				d.warnf("%s: template placeholder %s, not a status; kept in extra", p.path(k), s)
				continue
			}
			p.use(k)
			d.tasks = append(d.tasks, task{id: k, status: normTask(s)})
		}
	}
	d.workflowStatus()
	r.Phase = d.current
}

// workflowStatusFile sits beside initiative.json (or in the project root,
// one level up from .claude/) and holds the same milestone and status.
const workflowStatusFile = "WORKFLOW-STATUS.yaml"

// workflowStatus applies seed 000's sync rule to the WORKFLOW-STATUS.yaml
// beside the file, if any: when the two disagree on milestone or status, the
// more recently updated one wins. The YAML is kept whole in extra.
func (d *draft) workflowStatus() {
	dir := filepath.Dir(d.path)
	var data []byte
	var path string
	for _, p := range []string{filepath.Join(dir, workflowStatusFile), filepath.Join(filepath.Dir(dir), workflowStatusFile)} {
		b, err := d.opts.ReadFile(p)
		if err == nil {
			data, path = b, p
			break
		}
	}
	if path == "" {
		return
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil || doc == nil {
		d.warnf("%s: not a YAML mapping; ignored", path)
		return
	}
	raw, err := json.Marshal(jsonable(doc))
	if err != nil {
		d.warnf("%s: %v; ignored", path, err)
		return
	}
	d.extra["workflowStatus"] = raw

	milestone := yamlString(doc, "milestone", "currentMilestone", "current_milestone")
	status := yamlString(doc, "status")
	var at time.Time
	for _, k := range []string{"lastUpdated", "last_updated", "updated_at", "updated", "timestamp"} {
		switch v := doc[k].(type) {
		case time.Time:
			at = v.UTC()
		case string:
			if t, ok := parseTime(v); ok {
				at = t
			}
		}
		if !at.IsZero() {
			break
		}
	}
	st, _ := normStatus(status)
	if (milestone == "" || milestone == d.current) && (st == "" || st == d.rec.Status) {
		return
	}
	yamlNewer := !at.IsZero() && (d.rec.UpdatedAt.IsZero() || at.After(d.rec.UpdatedAt))
	if !yamlNewer {
		d.warnf("%s disagrees with %s (milestone %q, status %q) but is not newer; %s used",
			workflowStatusFile, filepath.Base(d.path), milestone, status, filepath.Base(d.path))
		return
	}
	d.warnf("%s is newer than %s and disagrees (milestone %q, status %q); its values are used",
		workflowStatusFile, filepath.Base(d.path), milestone, status)
	if milestone != "" {
		d.current = milestone
	}
	if st != "" {
		d.rec.Status = st
	}
	d.rec.UpdatedAt = at
}

func yamlString(doc map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := doc[k].(string); ok && !placeholderRe().MatchString(s) {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// jsonable turns what yaml.v3 decodes into values encoding/json takes
// (mappings with non-string keys become string-keyed).
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = jsonable(v)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[fmt.Sprint(k)] = jsonable(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = jsonable(v)
		}
		return out
	}
	return v
}

// workflow converts seed 001's {workflow}_{project}_{timestamp}.json: phase
// 1..total_phases become the tasks, completed_phases are done and
// current_phase is in progress.
func (d *draft) workflow(o *object) {
	r := &d.rec
	d.sourceID, d.sourceIDAt = o.peekStr("checkpoint_id"), o
	wt, desc := o.peekStr("workflow_type"), o.peekStr("workflow_description")
	d.field("Workflow", joinNonEmpty(" — ", wt, desc))
	if ws := o.sub("workflow_state"); ws != nil {
		d.setTaskID(ws, "project_name")
		if plan := ws.peekStr("plan_path"); plan != "" {
			d.field("Plan", plan)
		}
	}
	r.CreatedAt = o.time("created_at")
	r.UpdatedAt = o.time("updated_at")
	d.status(o, "status")

	cur, hasCur := o.integer("current_phase")
	total, _ := o.integer("total_phases")
	var done []int
	if o.value("completed_phases", &done, "an array of phase numbers") {
		o.use("completed_phases")
	} else {
		o.null("completed_phases")
	}
	for _, n := range done {
		total = max(total, n)
	}
	total = max(total, cur)
	for n := 1; n <= total; n++ {
		t := task{id: fmt.Sprintf("Phase %d", n), status: taskPending}
		switch {
		case slices.Contains(done, n):
			t.status = taskComplete
		case hasCur && n == cur && r.Status == records.StatusFailed:
			t.status = taskFailed
		case hasCur && n == cur:
			t.status = taskInProgress
		}
		d.tasks = append(d.tasks, t)
	}
	if hasCur {
		r.Phase = fmt.Sprintf("Phase %d of %d", cur, total)
	}
	d.lastError(o)
}

// lastError carries seed 001's last_error (a message, or an object with
// one) into the record's errors.
func (d *draft) lastError(o *object) {
	const k = "last_error"
	if o.null(k) {
		return
	}
	raw, ok := o.st.Raw(k)
	if !ok {
		return
	}
	e := records.Error{Type: "workflow_error", Timestamp: d.rec.UpdatedAt, Blocking: d.rec.Status == records.StatusFailed || d.rec.Status == records.StatusBlocked}
	var msg string
	if json.Unmarshal(raw, &msg) == nil {
		e.Message = strings.TrimSpace(msg)
		o.use(k)
	} else if eo := o.sub(k); eo != nil {
		e.Message = eo.str("message")
		if t := eo.str("type"); t != "" {
			e.Type = t
		}
		if ts := eo.time("timestamp"); !ts.IsZero() {
			e.Timestamp = ts
		}
		if e.Message == "" {
			e.Message = compactString(raw)
		}
	}
	if e.Message == "" {
		return
	}
	d.rec.Errors = append(d.rec.Errors, e)
	if e.Blocking {
		d.blockers = append(d.blockers, e.Message)
	}
}

func compactString(raw json.RawMessage) string { return string(compact(raw)) }

// sitebuilder converts seed 002's checkpoints: the subtask items become the
// tasks, and the file's own counts, criteria, errors and heartbeat carry
// over as they are.
func (d *draft) sitebuilder(o *object) {
	r := &d.rec
	d.sourceID, d.sourceIDAt = o.peekStr("checkpoint_id"), o
	d.agent = o.str("agent")
	if d.agent == "" {
		d.agent = o.peekStr("agent_name")
	}
	d.setTaskID(o, "task_id")
	title := o.peekStr("task_title")
	d.field("Task", joinNonEmpty(" — ", d.taskID, title))
	d.status(o, "status")
	r.CreatedAt = o.time("started_at")
	r.UpdatedAt = o.time("updated_at")
	r.CompletedAt = o.time("completed_at")
	r.FilesCreated = o.strs("files_created")
	r.FilesModified = o.strs("files_modified")
	d.next = o.str("resume_instructions")

	pct, hasPct := o.integer("progress_percent")
	if s := o.sub("subtasks"); s != nil {
		d.explicitSubtasks = true
		st := &r.Subtasks
		st.Total, _ = s.integer("total")
		st.Completed, _ = s.integer("completed")
		st.Failed, _ = s.integer("failed")
		if items, ok := s.objects("items"); ok {
			whole := true
			for _, it := range items {
				t := task{id: it.str("id"), status: normTask(it.str("status"))}
				if it.null("output") {
					t.output = nil
				} else if out := it.str("output"); out != "" {
					t.output = &out
				}
				whole = whole && it.whole()
				if t.id == "" {
					continue
				}
				d.tasks = append(d.tasks, t)
				st.Items = append(st.Items, records.Subtask{ID: t.id, Status: t.status, Output: t.output})
			}
			if whole {
				s.use("items")
			}
		}
		st.Total = max(st.Total, len(st.Items))
		if st.Total > 0 {
			st.Percent = st.Completed * 100 / st.Total
		}
		d.field("Subtasks", fmt.Sprintf("%d of %d complete", st.Completed, st.Total))
	}
	if hasPct {
		r.Subtasks.Percent = pct
	}

	if ac := o.sub("acceptance_criteria_met"); ac != nil {
		r.AcceptanceCriteriaMet = map[string]bool{}
		for _, k := range ac.st.Keys() {
			if met, ok := ac.boolean(k); ok {
				r.AcceptanceCriteriaMet[k] = met
				d.criteria = append(d.criteria, k)
			}
		}
	}
	d.errors(o, "errors")
	d.heartbeat(o)
}

// errors carries an array of {type, message, timestamp, blocking} over;
// blocking ones are the progress document's blockers.
func (d *draft) errors(o *object, k string) {
	items, ok := o.objects(k)
	if !ok {
		return
	}
	whole := true
	for _, it := range items {
		e := records.Error{Type: it.str("type"), Message: it.str("message"), Timestamp: it.time("timestamp")}
		e.Blocking, _ = it.boolean("blocking")
		whole = whole && it.whole()
		d.rec.Errors = append(d.rec.Errors, e)
		if e.Blocking && e.Message != "" {
			b := e.Message
			if e.Type != "" {
				b += " (" + e.Type + ")"
			}
			d.blockers = append(d.blockers, b)
		}
	}
	if whole {
		o.use(k)
	}
}

func (d *draft) heartbeat(o *object) {
	h := o.sub("heartbeat")
	if h == nil {
		return
	}
	d.rec.Heartbeat.LastBeat = h.time("last_beat")
	d.rec.Heartbeat.IntervalSeconds, _ = h.integer("interval_seconds")
}

// agentCheckpoint converts seed 003's agent_checkpoints/{agent_id}.json:
// completed steps, the current step and next steps become the tasks, and
// recovery instructions the next action.
func (d *draft) agentCheckpoint(o *object) {
	r := &d.rec
	d.agent = o.str("agent_id")
	r.SessionID = o.str("session_id")
	d.setTaskID(o, "feature")
	if f := o.peekStr("feature"); f != "" {
		d.field("Feature", f)
	}
	stage, phase := o.peekStr("stage"), o.str("phase")
	r.Phase = phase
	if r.Phase == "" && stage != "" {
		r.Phase = o.str("stage")
	}
	d.field("Stage", joinNonEmpty(" — ", stage, phase))
	r.UpdatedAt = o.time("last_checkpoint")
	r.Heartbeat.LastBeat = r.UpdatedAt
	r.NextCheckpointExpected = o.time("next_checkpoint_expected")
	if !r.UpdatedAt.IsZero() && !r.NextCheckpointExpected.IsZero() {
		if s := int(r.NextCheckpointExpected.Sub(r.UpdatedAt) / time.Second); s > 0 {
			r.Heartbeat.IntervalSeconds = s
		}
	}
	d.status(o, "status")
	r.FilesModified = o.strs("files_modified")
	d.next = o.str("recovery_instructions")

	for _, s := range o.strs("completed_steps") {
		d.tasks = append(d.tasks, task{id: s, status: taskComplete})
	}
	if cur := o.str("current_step"); cur != "" {
		d.tasks = append(d.tasks, task{id: cur, status: taskInProgress})
	}
	for _, s := range o.strs("next_steps") {
		d.tasks = append(d.tasks, task{id: s, status: taskPending})
	}
	for _, b := range o.strs("blockers") {
		d.blockers = append(d.blockers, b)
		r.Errors = append(r.Errors, records.Error{Type: "blocker", Message: b, Timestamp: r.UpdatedAt, Blocking: true})
	}
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}
