package machines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// prePushMark is in the pre-push hook ccc installs, so it knows its own.
const prePushMark = "# ccc pre-push:"

// chainedName is where an existing pre-push hook goes; ccc's hook runs it
// first and fails the push when it fails, as it would have.
const chainedName = "pre-push.before-ccc"

// prePush is ccc's pre-push hook: the chained hook first (its verdict is
// the push's), then ccc sync, whose result never stops the user's push.
const prePush = `#!/bin/sh
` + prePushMark + ` publishes the checkpoint branch with every push (ccc init handoff --pre-push).
# A hook that was here before runs first, as ` + chainedName + `; its verdict is the push's.
input=$(cat)
chained="$(dirname "$0")/` + chainedName + `"
if [ -x "$chained" ]; then
	printf '%s\n' "$input" | "$chained" "$@" || exit $?
fi
ccc sync --timeout 20s >/dev/null 2>&1 || echo "ccc: the checkpoint branch was not published (run ccc sync)" >&2
exit 0
`

// InstallPrePush installs ccc's pre-push hook where git looks for hooks
// (core.hooksPath honoured), chaining an existing one (moved to
// pre-push.before-ccc). It returns the hook's path and whether it
// changed anything.
func InstallPrePush(ctx context.Context, root string) (string, bool, error) {
	r, err := Open(ctx, root)
	if err != nil {
		return "", false, err
	}
	dir, err := gitrepo.HooksDir(ctx, r.Dir)
	if err != nil {
		return "", false, err
	}
	path := filepath.Join(dir, "pre-push")
	cur, err := projectfs.ReadProjectFile("", path, 1<<20)
	switch {
	case err == nil && strings.Contains(string(cur), prePushMark):
		return path, false, nil
	case err == nil:
		chained := filepath.Join(dir, chainedName)
		if _, serr := os.Lstat(chained); serr == nil {
			return path, false, fmt.Errorf("%s and %s both exist: merge them by hand", path, chained)
		}
		if err := os.Rename(path, chained); err != nil {
			return path, false, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return path, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, false, err
	}
	if err := projectfs.WriteFileAtomic(path, []byte(prePush), 0o755); err != nil {
		return path, false, err
	}
	return path, true, nil
}

// SayPrePush installs the pre-push hook (InstallPrePush) and says what it
// did on w.
func SayPrePush(ctx context.Context, w io.Writer, root string) error {
	path, changed, err := InstallPrePush(ctx, root)
	switch {
	case err != nil:
		return fmt.Errorf("init handoff: pre-push hook: %w", err)
	case !changed:
		fmt.Fprintf(w, "%s already publishes the checkpoint branch.\n", path)
	default:
		fmt.Fprintf(w, "Installed %s: every git push now also runs ccc sync (an earlier hook runs first, as %s).\n", path, chainedName)
	}
	return nil
}
