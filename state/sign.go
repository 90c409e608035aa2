package state

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// Tag is the hex HMAC-SHA256 under key of fields, each prefixed with its
// length so that no two lists of fields encode alike. ccc tags what it
// writes into a project with the user's key (config.UserKey): a repository
// can commit any file under .ccc/, but not one that carries this user's tag.
func Tag(key []byte, fields ...string) string {
	m := hmac.New(sha256.New, key)
	var n [8]byte
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		m.Write(n[:])
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// ValidTag says whether tag is Tag(key, fields...). No key verifies
// nothing.
func ValidTag(key []byte, tag string, fields ...string) bool {
	if len(key) == 0 || tag == "" {
		return false
	}
	return hmac.Equal([]byte(tag), []byte(Tag(key, fields...)))
}

// signed lists what an entry's signature covers: what would be delivered,
// where and as whom. The bookkeeping (attempts, errors, times to retry) is
// left out: forging it can only delay a delivery.
func (e Entry) signed() []string {
	return []string{"ccc/outbox/v1", e.Sink, e.Target, e.Agent, e.Body, e.FullText, e.RenderedAt.UTC().Format(time.RFC3339Nano)}
}

// Sign returns e signed with key.
func (e Entry) Sign(key []byte) Entry {
	e.Sig = Tag(key, e.signed()...)
	return e
}

// Verify says whether e carries a valid signature made with key: only such
// an entry was queued by this user's ccc.
func (e Entry) Verify(key []byte) bool { return ValidTag(key, e.Sig, e.signed()...) }
