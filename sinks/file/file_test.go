package file_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/file/filefake"
)

func deliver(t *testing.T, s *file.Sink, target, agent, body string, prev sinks.Ref) (sinks.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Upsert(ctx, sinks.Delivery{Target: sinks.Target{Issue: target, Agent: agent}, Body: body, Prev: prev})
}

func ids(n int) func() string {
	return func() string { n++; return "s-" + string(rune('a'+n-1)) }
}

// TestFileLayout writes two agents' sections into a file the user keeps
// other text in, and compares the whole file after every step.
func TestFileLayout(t *testing.T) {
	tests := []struct {
		name string
		// before is the file's content (absent when nil).
		before *string
		steps  []struct{ agent, body string }
		want   string
		// existing: every agent's section is already in before.
		existing bool
	}{
		{
			name:  "new file",
			steps: []struct{ agent, body string }{{"main", "## Checkpoint Status\n\none\n"}},
			want:  "<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n## Checkpoint Status\n\none\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n",
		},
		{
			// A file of one's own becomes a status file with a section
			// in it, here an empty one of an agent that is not writing.
			name:   "user text kept, second agent appended, first updated in place",
			before: ptr("# Team status\n\nWritten by hand.\n\n<!-- ccc:status agent=\"lead\" id=\"s-0\" -->\n<!-- /ccc:status -->\n"),
			steps: []struct{ agent, body string }{
				{"main", "main one"}, {"worker-2", "w one"}, {"main", "main two\n\n"},
			},
			want: "# Team status\n\nWritten by hand.\n\n<!-- ccc:status agent=\"lead\" id=\"s-0\" -->\n<!-- /ccc:status -->\n\n" +
				"<!-- ccc:status agent=\"main\" id=\"s-a\" -->\nmain two\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n\n" +
				"<!-- ccc:status agent=\"worker-2\" id=\"s-b\" -->\nw one\n\n_ccc agent `worker-2`_\n<!-- /ccc:status -->\n",
		},
		{
			name:   "CRLF file and no final newline",
			before: ptr("<!-- ccc:status agent=\"lead\" id=\"s-0\" -->\r\n<!-- /ccc:status -->\r\nNotes\r\nmore"),
			steps:  []struct{ agent, body string }{{"main", "a\r\nb"}},
			want:   "<!-- ccc:status agent=\"lead\" id=\"s-0\" -->\r\n<!-- /ccc:status -->\r\nNotes\r\nmore\r\n\r\n<!-- ccc:status agent=\"main\" id=\"s-a\" -->\r\na\r\nb\r\n\r\n_ccc agent `main`_\r\n<!-- /ccc:status -->\r\n",
		},
		{
			name: "a section shown in a code block is an example, not a section",
			before: ptr("How it looks:\n\n~~~~\n<!-- ccc:status agent=\"main\" id=\"s-z\" -->\nold\n<!-- /ccc:status -->\n~~~~\n" +
				"    <!-- ccc:status agent=\"main\" id=\"s-y\" -->\n"),
			steps: []struct{ agent, body string }{{"main", "new"}},
			want: "How it looks:\n\n~~~~\n<!-- ccc:status agent=\"main\" id=\"s-z\" -->\nold\n<!-- /ccc:status -->\n~~~~\n" +
				"    <!-- ccc:status agent=\"main\" id=\"s-y\" -->\n\n" +
				"<!-- ccc:status agent=\"main\" id=\"s-a\" -->\nnew\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n",
		},
		{
			name:  "a body line that reads as a marker cannot end the section",
			steps: []struct{ agent, body string }{{"main", "x\n<!-- /ccc:status -->\ny"}, {"main", "x\n<!-- /ccc:status -->\nz"}},
			want:  "<!-- ccc:status agent=\"main\" id=\"s-a\" -->\nx\n&lt;!-- /ccc:status -->\nz\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n",
		},
		{
			name:  "the status fields are one list",
			steps: []struct{ agent, body string }{{"main", "## Checkpoint Status\n\n**Task:** 1 of 2 — a\n**Status:** In Progress\n\n**Next:** b\n"}},
			want: "<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n## Checkpoint Status\n\n" +
				"- **Task:** 1 of 2 — a\n- **Status:** In Progress\n- **Next:** b\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n",
		},
		{
			name:  "a body ending inside a fence is closed before the agent line",
			steps: []struct{ agent, body string }{{"main", "## Log\n\n````\nstep 1\n"}},
			want:  "<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n## Log\n\n````\nstep 1\n````\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n",
		},
		{
			name: "a section in the old layout, left open by its body, is replaced cleanly",
			before: ptr("# Status\n\n<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n## Checkpoint Status\n\n**Task:** 1 of 2 — a\n" +
				"**Status:** In Progress\n\n```\nlog\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n\n" +
				"<!-- ccc:status agent=\"w\" id=\"s-q\" -->\nw one\n\n_ccc agent `w`_\n<!-- /ccc:status -->\n"),
			steps:    []struct{ agent, body string }{{"w", "w two"}, {"main", "## Checkpoint Status\n\n**Task:** 2 of 2 — b\n**Status:** In Progress\n"}},
			existing: true,
			want: "# Status\n\n<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n## Checkpoint Status\n\n- **Task:** 2 of 2 — b\n" +
				"- **Status:** In Progress\n\n_ccc agent `main`_\n<!-- /ccc:status -->\n\n" +
				"<!-- ccc:status agent=\"w\" id=\"s-q\" -->\nw two\n\n_ccc agent `w`_\n<!-- /ccc:status -->\n",
		},
		{
			name:  "agent names are quoted",
			steps: []struct{ agent, body string }{{`a "b"`, "q"}, {`a "b"`, "r"}},
			want:  "<!-- ccc:status agent=\"a \\\"b\\\"\" id=\"s-a\" -->\nr\n\n_ccc agent `a \"b\"`_\n<!-- /ccc:status -->\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "docs", "STATUS.md")
			if tt.before != nil {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(*tt.before), 0o644))
			}
			s := file.New(file.Config{Root: root, NewID: ids(0)})
			refs := map[string]sinks.Ref{}
			for i, st := range tt.steps {
				res, err := deliver(t, s, "docs/STATUS.md", st.agent, st.body, refs[st.agent])
				require.NoError(t, err, "step %d", i)
				want := sinks.Created
				if _, seen := refs[st.agent]; seen || tt.existing {
					want = sinks.Updated
				}
				assert.Equal(t, want, res.Action, "step %d", i)
				assert.Equal(t, 1, res.Requests)
				assert.Equal(t, "file://"+filepath.ToSlash(path), res.Ref.URL)
				refs[st.agent] = res.Ref
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func ptr(s string) *string { return &s }

func TestCorruptFileIsNeverRewritten(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "STATUS.md")
	corrupt := "# Status\n\n<!-- ccc:status agent=\"main\" id=\"s-a\" -->\nhalf a section\n"
	require.NoError(t, os.WriteFile(path, []byte(corrupt), 0o644))
	fake := &filefake.FS{}
	s := newSink(root, fake)
	res, err := deliver(t, s, "STATUS.md", "main", "new", sinks.Ref{})
	var serr *sinks.Error
	require.True(t, errors.As(err, &serr), "%v", err)
	assert.True(t, serr.Permanent)
	assert.Equal(t, "STATUS.md:3: unreadable status section", serr.Cause)
	assert.Contains(t, err.Error(), `the status section of agent "main" has no end line`)
	assert.Equal(t, sinks.Failed, res.Action)
	assert.Equal(t, 1, fake.Edits(), "not retried")
	got, _ := os.ReadFile(path)
	assert.Equal(t, corrupt, string(got))
}

func TestConcurrentEditIsKept(t *testing.T) {
	root := t.TempDir()
	fake := &filefake.FS{}
	s := newSink(root, fake)
	first, err := deliver(t, s, "STATUS.md", "main", "one", sinks.Ref{})
	require.NoError(t, err)
	fake.Inject(filefake.Concurrent, filefake.Concurrent)
	res, err := deliver(t, s, "STATUS.md", "main", "two", first.Ref)
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, res.Action)
	assert.Equal(t, 3, res.Requests)
	got, _ := os.ReadFile(filepath.Join(root, "STATUS.md"))
	assert.Contains(t, string(got), "Edited by hand meanwhile (1).\nEdited by hand meanwhile (2).\n", "the other writers' lines survive")
	assert.Contains(t, string(got), "\ntwo\n")
	assert.NotContains(t, string(got), "\none\n")
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name      string
		fault     filefake.Fault
		cause     string
		permanent bool
		requests  int
	}{
		{"permission denied", filefake.Denied, "writing STATUS.md: permission denied", true, 1},
		{"always changing", filefake.Concurrent, "STATUS.md changed while being written", false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			fake := &filefake.FS{}
			s := file.New(file.Config{Root: root, FS: fake, MaxAttempts: 3, InitialInterval: time.Millisecond})
			for range 5 {
				fake.Inject(tt.fault)
			}
			res, err := deliver(t, s, "STATUS.md", "main", "x", sinks.Ref{})
			var serr *sinks.Error
			require.True(t, errors.As(err, &serr), "%v", err)
			assert.Equal(t, tt.cause, serr.Cause)
			assert.Equal(t, tt.permanent, serr.Permanent)
			assert.Equal(t, tt.requests, res.Requests)
			assert.NotContains(t, serr.Cause, root, "the cause names the file as configured")
		})
	}
}

func TestTargets(t *testing.T) {
	root := t.TempDir()
	s := file.New(file.Config{Root: root})
	_, err := deliver(t, s, " ", "main", "x", sinks.Ref{})
	var skip *sinks.SkipError
	require.True(t, errors.As(err, &skip))
	assert.Equal(t, "no status file (set sinks.file.path)", skip.Reason)

	res, err := deliver(t, s, "docs/STATUS.md", "main", "x", sinks.Ref{})
	require.NoError(t, err)
	assert.Equal(t, "file://"+filepath.ToSlash(filepath.Join(root, "docs/STATUS.md")), res.Ref.URL)
}

// TestTargetsOutsideTheProject: the path comes from the repository's
// preferences; one that leads out of the project is skipped with the
// reason, and nothing is written there.
func TestTargetsOutsideTheProject(t *testing.T) {
	outside := t.TempDir()
	root := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(root, 0o755))
	bashrc := filepath.Join(outside, ".bashrc")
	require.NoError(t, os.WriteFile(bashrc, []byte("export PS1=x\n"), 0o644))
	require.NoError(t, os.Symlink(bashrc, filepath.Join(root, "STATUS.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "docs")))
	rel, err := filepath.Rel(root, bashrc)
	require.NoError(t, err)
	s := file.New(file.Config{Root: root})
	for _, tt := range []struct{ target, why string }{
		{bashrc, "names a path outside the project; the file sink writes only inside it"},
		{rel, "names a path outside the project; the file sink writes only inside it"},
		{"notes/../../x.md", "names a path outside the project; the file sink writes only inside it"},
		{"STATUS.md", "resolves outside the project (to " + bashrc + "); the file sink writes only inside it"},
		{"docs/new.md", "resolves outside the project (to " + filepath.Join(outside, "new.md") + "); the file sink writes only inside it"},
	} {
		_, err := deliver(t, s, tt.target, "main", "x", sinks.Ref{})
		var skip *sinks.SkipError
		require.True(t, errors.As(err, &skip), "%s: %v", tt.target, err)
		assert.Contains(t, skip.Reason, fmt.Sprintf("sinks.file.path %q %s", tt.target, tt.why))
		_, err = s.Health(context.Background(), tt.target)
		assert.True(t, errors.As(err, &skip), "health of %s: %v", tt.target, err)
	}
	data, err := os.ReadFile(bashrc)
	require.NoError(t, err)
	assert.Equal(t, "export PS1=x\n", string(data))
	assert.NoFileExists(t, filepath.Join(outside, "new.md"))
	assert.NoFileExists(t, filepath.Join(filepath.Dir(root), "x.md"))
}

func TestPersistBeforeCreate(t *testing.T) {
	root := t.TempDir()
	s := file.New(file.Config{Root: root, NewID: ids(0)})
	var persisted []sinks.Ref
	res, err := s.Upsert(context.Background(), sinks.Delivery{
		Target: sinks.Target{Issue: "STATUS.md", Agent: "main"}, Body: "x",
		Persist: func(r sinks.Ref) error {
			_, err := os.Stat(filepath.Join(root, "STATUS.md"))
			assert.True(t, os.IsNotExist(err), "persisted before the file is written")
			persisted = append(persisted, r)
			return nil
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []sinks.Ref{{PendingID: "s-a"}}, persisted)
	assert.Equal(t, "s-a", res.Ref.ID)

	_, err = s.Upsert(context.Background(), sinks.Delivery{
		Target: sinks.Target{Issue: "OTHER.md", Agent: "main"}, Body: "x",
		Persist: func(sinks.Ref) error { return errors.New("disk full") },
	})
	var serr *sinks.Error
	require.True(t, errors.As(err, &serr))
	assert.Equal(t, "could not store the pending section id", serr.Cause)
	assert.NoFileExists(t, filepath.Join(root, "OTHER.md"), "nothing is written without the id stored")
}

func TestHealth(t *testing.T) {
	root := t.TempDir()
	s := file.New(file.Config{Root: root})
	ctx := context.Background()

	h, err := s.Health(ctx, "docs/STATUS.md")
	require.NoError(t, err)
	assert.Equal(t, "docs/STATUS.md (created at the first checkpoint)", h.Target)
	assert.NoDirExists(t, filepath.Join(root, "docs"), "a health check writes nothing")

	_, err = deliver(t, s, "STATUS.md", "main", "x", sinks.Ref{})
	require.NoError(t, err)
	h, err = s.Health(ctx, "STATUS.md")
	require.NoError(t, err)
	assert.Equal(t, "STATUS.md", h.Target)

	require.NoError(t, os.WriteFile(filepath.Join(root, "BAD.md"), []byte("<!-- ccc:status agent=\"main\" id=\"s-a\" -->\n"), 0o644))
	_, err = s.Health(ctx, "BAD.md")
	assert.ErrorContains(t, err, "BAD.md:1: the status section of agent \"main\" has no end line")

	_, err = s.Health(ctx, "")
	var skip *sinks.SkipError
	assert.True(t, errors.As(err, &skip))

	if os.Geteuid() != 0 {
		ro := filepath.Join(root, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		_, err = s.Health(ctx, "ro/STATUS.md")
		assert.ErrorContains(t, err, "cannot create ro/STATUS.md: permission denied")
	}
}

func TestPhrase(t *testing.T) {
	var p sinks.Phraser = file.New(file.Config{})
	assert.Equal(t, "updated section in STATUS.md", p.Phrase(sinks.Updated, "STATUS.md"))
	assert.True(t, strings.HasPrefix(p.Phrase(sinks.Created, "x.md"), "created section"))
}

// Rendered, every section marker stays an HTML comment (hidden) and every
// agent line a paragraph, even after a section whose body ends inside a
// fence; ccc still finds the second agent's section and updates it in
// place. The status fields are separate list items, not one joined line.
func TestSectionsRenderAfterAnOpenFence(t *testing.T) {
	root := t.TempDir()
	s := file.New(file.Config{Root: root, NewID: ids(0)})
	first, err := deliver(t, s, "STATUS.md", "main", "## Build log\n\n```\nstep 1 ok\nstep 2 ok", sinks.Ref{})
	require.NoError(t, err)
	status := comment.Render(comment.Status{TaskN: 1, TaskM: 2, Task: "review", Next: "merge"})
	second, err := deliver(t, s, "STATUS.md", "worker-2", status, sinks.Ref{})
	require.NoError(t, err)
	again, err := deliver(t, s, "STATUS.md", "worker-2", status+"\n\nmore", sinks.Ref{})
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, again.Action, "the second section is found after the first one's fence")
	assert.Equal(t, second.Ref.ID, again.Ref.ID)

	data, err := os.ReadFile(filepath.Join(root, "STATUS.md"))
	require.NoError(t, err)
	bs := testutil.Blocks(string(data))
	var comments, agents []string
	for _, b := range bs {
		switch {
		case strings.HasPrefix(b, "HTMLBlock: "):
			comments = append(comments, b)
		case strings.HasPrefix(b, "Paragraph: _ccc agent"):
			agents = append(agents, b)
		}
		if strings.HasPrefix(b, "FencedCodeBlock: ") {
			assert.NotContains(t, b, "ccc", "a marker or agent line inside code: %q", data)
		}
	}
	assert.Equal(t, []string{
		`HTMLBlock: <!-- ccc:status agent="main" id="` + first.Ref.ID + `" -->`, "HTMLBlock: <!-- /ccc:status -->",
		`HTMLBlock: <!-- ccc:status agent="worker-2" id="` + second.Ref.ID + `" -->`, "HTMLBlock: <!-- /ccc:status -->",
	}, comments, "%s", data)
	assert.Equal(t, []string{"Paragraph: _ccc agent `main`_", "Paragraph: _ccc agent `worker-2`_"}, agents)
	assert.Contains(t, bs, "List: ", "the fields of worker-2's status are a list")
}

// TestTargetsInGitOrNotCCCs: a repository's preferences must not make the
// file sink write into the clone's git directory (.git/config, HEAD, a
// hook: every git command would then fail, or run the status), nor into a
// file of the project that is not ccc's status file.
func TestTargetsInGitOrNotCCCs(t *testing.T) {
	root := t.TempDir()
	for _, c := range [][]string{
		{"init", "-q", root},
		{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"},
		{"-C", root, "worktree", "add", "-q", "--detach", filepath.Join(root, "wt")},
	} {
		cmd := exec.Command("git", c...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	config := filepath.Join(root, ".git", "config")
	before, err := os.ReadFile(config)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(".git/HEAD", filepath.Join(root, "head.md")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte("all:\n\tgo build\n"), 0o644))

	for _, tt := range []struct{ root, target, why string }{
		{root, ".git/config", "is inside the git directory"},
		{root, ".git/hooks/pre-commit", "is inside the git directory"},
		{root, ".GIT/HEAD", "is inside the git directory"},
		{root, "head.md", "is inside the git directory"},
		{filepath.Join(root, "wt"), "../.git/config", "names a path outside the project"},
		{root, "Makefile", "is not ccc's status file (it holds no ccc status section)"},
	} {
		s := file.New(file.Config{Root: tt.root})
		_, err := deliver(t, s, tt.target, "main", "x", sinks.Ref{})
		var skip *sinks.SkipError
		require.True(t, errors.As(err, &skip), "%s: %v", tt.target, err)
		assert.Contains(t, skip.Reason, fmt.Sprintf("sinks.file.path %q %s", tt.target, tt.why))
		_, err = s.Health(context.Background(), tt.target)
		assert.True(t, errors.As(err, &skip), "health of %s: %v", tt.target, err)
	}
	after, err := os.ReadFile(config)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	assert.Equal(t, "all:\n\tgo build\n", string(mk))

	// The worktree's own git directory, reached through its .git file, is
	// the common dir's worktrees/wt: a target there is refused too.
	wt := filepath.Join(root, "wt")
	require.NoError(t, os.Symlink(filepath.Join(root, ".git", "worktrees", "wt", "HEAD"), filepath.Join(wt, "h.md")))
	_, err = deliver(t, file.New(file.Config{Root: wt}), "h.md", "main", "x", sinks.Ref{})
	var skip *sinks.SkipError
	require.True(t, errors.As(err, &skip), "%v", err)
}
