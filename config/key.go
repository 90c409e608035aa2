package config

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KeyName is the user's signing key in UserConfigDir.
const KeyName = "key"

// keySize is the length of the signing key in bytes.
const keySize = 32

// UserKey returns the user's signing key (KeyName in UserConfigDir): 32
// random bytes, made on first use with mode 0600 in a 0700 directory. ccc
// signs what it writes into a project (outbox entries, tracker references)
// with it, so that what a repository commits there is told apart from what
// this user's ccc wrote: the key lives outside every repository and is
// never printed.
func UserKey(env Env) ([]byte, error) {
	dir, err := UserConfigDir(env)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	path := filepath.Join(dir, KeyName)
	if key, err := readKey(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(key)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	// A link never replaces a key another process made meanwhile: both
	// then read that one.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return readKey(path)
}

func readKey(path string) ([]byte, error) {
	key, _, err := ReadPrivateFile(filepath.Dir(path), path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("signing key: %s is not a key (%d bytes, want %d)", path, len(key), keySize)
	}
	return key, nil
}
