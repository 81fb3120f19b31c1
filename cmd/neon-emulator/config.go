package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// config is the emulator program's flags, after the environment filled in
// those not given (flagsFromEnv).
type config struct {
	listen, controlToken, bootstrapKey   string
	projects, accountRPM, routeRPS       int
	stateFile, readyFile                 string
	verbose, validate, useTLS, proxy     bool
	seed                                 *emulator.Seed
	tlsNames, tlsCAFile, tlsCert, tlsKey string
	showVersion                          bool
	dataAPIBoot, latency                 time.Duration
	fetchJWKS                            bool
	rateLimitReading                     emulator.RateLimitReading
	deviations                           []emulator.Deviation
}

// controlTokenEnv holds the control token, for the emulator and for call.
const controlTokenEnv = "NEON_EMULATOR_CONTROL_TOKEN"

// orEnv sets an empty flag value from the environment variable.
func orEnv(v *string, name string) {
	if *v == "" {
		*v = os.Getenv(name)
	}
}

// envName is the environment variable of a flag: -tls-name is
// NEON_EMULATOR_TLS_NAME.
func envName(flagName string) string {
	return "NEON_EMULATOR_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// flagsFromEnv sets every flag not given on the command line from its
// environment variable, if set: containers (a CI service cannot pass
// arguments) are configured through the environment. Values from the
// environment are read after parsing, so that -help never prints them.
func flagsFromEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := os.LookupEnv(envName(f.Name))
		if given[f.Name] || !ok || v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q (for -%s): %w", envName(f.Name), v, f.Name, err))
		}
	})
	return errors.Join(errs...)
}
