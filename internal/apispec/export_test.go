package apispec

import "github.com/getkin/kin-openapi/openapi3"

// What only the tests of this package use.

// Document returns the OpenAPI document, loaded once and shared: callers
// must not change it.
func Document() (*openapi3.T, error) { return loadDocument() }

// Reset forgets the recorded violations.
func (v *Validator) Reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.violations = nil
}
