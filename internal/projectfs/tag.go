package projectfs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
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
