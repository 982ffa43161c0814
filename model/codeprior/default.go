package codeprior

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sync"
)

// defaultArtifact is the shipped prior, built by `triage prior build`
// (docs/prior.md says how; its header holds the provenance).
//
//go:embed default.prior
var defaultArtifact []byte

// DefaultBytes returns the shipped prior's artifact.
func DefaultBytes() []byte { return defaultArtifact }

var loadDefault = sync.OnceValues(func() (*Model, error) {
	m, err := Load(defaultArtifact)
	if err != nil {
		return nil, fmt.Errorf("the embedded code prior: %w", err)
	}
	return m, nil
})

// DefaultSHA256 is the hex sha256 of the shipped prior's artifact: what a
// checkpoint that reads the prior records.
func DefaultSHA256() string { return defaultSHA() }

var defaultSHA = sync.OnceValue(func() string {
	sum := sha256.Sum256(defaultArtifact)
	return hex.EncodeToString(sum[:])
})

// Default returns the shipped prior, loaded once per process.
func Default() (*Model, error) { return loadDefault() }
