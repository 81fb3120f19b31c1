// Package acctest is what the acceptance tests and the random walks share:
// a test's place on the API under test, in-process on an emulator or on a
// remote server (Env: NewBranchEnv, NewProjectEnv, NewEmulatorEnv,
// InBothModes), the provider served to the real Terraform CLI (Env.TestCase
// for terraform-plugin-testing, Env.CLI to drive the CLI command by
// command), the named checks and set-up steps through the public API, the
// API keys a test makes, the check of every request and answer against the
// API reference, the capabilities of the CLI under test, and the Better
// Auth settings types and the list-backed types described once
// (SettingsCases, ListedCases). Only tests import it;
// a package's TestMain calls RunTests.
package acctest
