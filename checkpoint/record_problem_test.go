package checkpoint

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A records error is said once as "record: …", never "record: records: …".
func TestRecordProblem(t *testing.T) {
	for in, want := range map[error]string{
		errors.New("records: list worktrees: exit 128"):        "record: list worktrees: exit 128",
		fmt.Errorf("write %s: permission denied", "main.json"): "record: write main.json: permission denied",
	} {
		assert.Equal(t, want, recordProblem(in))
	}
}
