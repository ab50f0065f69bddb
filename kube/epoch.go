package kube

import (
	"crypto/rand"
	"encoding/hex"
)

// NewEpoch returns a new random ID for a running process, to create its
// cacheready.Machine with and store beside CacheReady: 16 lowercase
// hexadecimal digits (64 bits from crypto/rand), different between processes
// and between restarts of one.
func NewEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
