package apispec

import "github.com/getkin/kin-openapi/openapi3"

// The loaded API reference, for code that derives its rules from it (the
// emulator reads the request body schemas of the operations it serves).

// Document returns the OpenAPI document with its overlays, loaded once and
// shared: callers must not change it.
func Document() (*openapi3.T, error) { return loadDocument() }

// ReferenceJSON is the OpenAPI document with its overlays, as JSON: the input
// of the code generated from the reference (package neonapi).
func ReferenceJSON() ([]byte, error) { return withOverlays(openAPIDocument, overlayFiles) }
