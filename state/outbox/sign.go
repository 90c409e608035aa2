package outbox

import (
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// signed lists what an entry's signature covers: what would be delivered,
// where and as whom. The bookkeeping (attempts, errors, times to retry) is
// left out: forging it can only delay a delivery.
func (e Entry) signed() []string {
	return []string{"ccc/outbox/v1", e.Sink, e.Target, e.Agent, e.Body, e.FullText, e.RenderedAt.UTC().Format(time.RFC3339Nano)}
}

// Sign returns e signed with key.
func (e Entry) Sign(key []byte) Entry {
	e.Sig = projectfs.Tag(key, e.signed()...)
	return e
}

// Verify says whether e carries a valid signature made with key: only such
// an entry was queued by this user's ccc.
func (e Entry) Verify(key []byte) bool { return projectfs.ValidTag(key, e.Sig, e.signed()...) }
