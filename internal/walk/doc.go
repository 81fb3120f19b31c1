// Package walk tests the provider's lifecycle by random walks (make
// test-walk): random sequences of what users and platforms do, run through
// the real Terraform CLI and checked after every step against a model of
// what the docs promise, and the walks that once broke an invariant, kept
// as tests. Everything is in its tests; see CONTRIBUTING.md, "Random
// walks".
package walk
