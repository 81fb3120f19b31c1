package apispec

// What only the tests of this package use.

// Reset forgets the recorded violations.
func (v *Validator) Reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.violations = nil
}
