// Package workflows tests the CI recipes in examples/ci and the script they
// call, scripts/drift-check.sh, and the README's install recipe before a
// release, scripts/local-mirror.sh, by running them for real: the provider
// and neon-emulator built from this repository, the Terraform CLI from PATH.
package workflows
