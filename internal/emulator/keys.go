package emulator

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// API keys of the emulator: their kinds, tokens (stored hashed) and which
// projects each may see.

// KeyKind is the type of an API key.
type KeyKind string

// The API key types of the platform.
const (
	KeyPersonal     KeyKind = "personal"     // a user's key: all projects of the organization
	KeyOrganization KeyKind = "organization" // admin-level: all projects of the organization
	KeyProject      KeyKind = "project"      // member-level: one project only
)

// apiKey is a stored key. Only the SHA-256 of the token is kept.
type apiKey struct {
	Hash      string    `json:"sha256"`
	Kind      KeyKind   `json:"kind"`
	ProjectID string    `json:"project_id,omitempty"`
	Revoked   bool      `json:"revoked"`
	CreatedAt time.Time `json:"created_at"`
}

// keyInfo is what a handler knows about the caller's key.
type keyInfo struct {
	kind      KeyKind
	projectID string // KeyProject only
}

// canSee reports whether the key may access the project (existing or not).
func (k keyInfo) canSee(projectID string) bool {
	return k.kind != KeyProject || k.projectID == projectID
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newAPIKeyToken returns a random 64-character lower-case alphanumeric token.
func newAPIKeyToken() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 64)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
