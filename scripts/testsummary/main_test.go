package main

import (
	"strings"
	"testing"
)

// A skipped test or subtest is listed with the message it skipped with, so that a run
// on an older CLI shows what it did not test and why.
func TestSkippedTestsAreListedWithTheirReason(t *testing.T) {
	var out strings.Builder
	s := &summary{out: &out, output: map[testKey]*strings.Builder{}, tests: map[testKey]float64{}, packages: map[string]float64{}, counts: map[string]int{}}
	for _, l := range []string{
		`{"Action":"run","Package":"m/internal/provider","Test":"TestAccQuery_findsWhatExists"}`,
		`{"Action":"output","Package":"m/internal/provider","Test":"TestAccQuery_findsWhatExists","Output":"=== RUN   TestAccQuery_findsWhatExists\n"}`,
		`{"Action":"output","Package":"m/internal/provider","Test":"TestAccQuery_findsWhatExists","Output":"    cli_test.go:80: list resources (terraform query) need Terraform 1.14.0 or later; OpenTofu has none\n"}`,
		`{"Action":"output","Package":"m/internal/provider","Test":"TestAccQuery_findsWhatExists","Output":"--- SKIP: TestAccQuery_findsWhatExists (0.00s)\n"}`,
		`{"Action":"skip","Package":"m/internal/provider","Test":"TestAccQuery_findsWhatExists","Elapsed":0}`,
		`{"Action":"output","Package":"m/internal/provider","Test":"TestAccIdentity/domain","Output":"    identity_test.go:40: resource identity needs Terraform 1.12.0 or later\n"}`,
		`{"Action":"skip","Package":"m/internal/provider","Test":"TestAccIdentity/domain","Elapsed":0}`,
		`{"Action":"pass","Package":"m/internal/provider","Test":"TestAccIdentity","Elapsed":0.5}`,
		`{"Action":"pass","Package":"m/internal/provider","Test":"TestAccOther","Elapsed":1.5}`,
		`{"Action":"pass","Package":"m/internal/provider","Elapsed":2}`,
	} {
		s.line([]byte(l))
	}
	s.report(0)
	got := out.String()
	for _, want := range []string{
		"tests: 2 passed, 0 failed, 2 skipped",
		"  internal/provider TestAccIdentity/domain: resource identity needs Terraform 1.12.0 or later\n",
		"skipped, and why:\n  internal/provider TestAccQuery_findsWhatExists: list resources (terraform query) need Terraform 1.14.0 or later; OpenTofu has none\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestSkipReasonWithoutOutput(t *testing.T) {
	if got := skipReason(nil); got != "(no reason given)" {
		t.Errorf("skipReason(nil) = %q", got)
	}
}

// The summary names the CLI only for a run of acceptance tests: the unit
// packages drive none.
func TestHeaderNamesTheCLIOnlyForAcceptanceTests(t *testing.T) {
	t.Setenv("TF_ACC", "")
	t.Setenv("TF_ACC_TERRAFORM_PATH", "/nonexistent/terraform")
	if got := header(); got != "" {
		t.Errorf("without TF_ACC the header is %q, want none", got)
	}
	t.Setenv("TF_ACC", "1")
	if got, want := header(), "Acceptance tests drive /nonexistent/terraform (version unknown)"; got != want {
		t.Errorf("with TF_ACC the header is %q, want %q", got, want)
	}
}
