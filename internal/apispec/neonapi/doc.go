// Package neonapi holds the shapes of the platform API v2 that the client
// (internal/apiclient) and the emulator (internal/emulator) speak: the
// request and response types of every operation the emulator serves, and
// the values of their enums, generated from the API reference
// (internal/apispec: Neon's OpenAPI document with its overlays) by
// oapi-codegen, the tool pinned in go.mod. Nothing here is written by hand:
// `make generate` (go generate) writes it again, and CI fails when it is
// stale.
package neonapi

//go:generate go run ./gen
