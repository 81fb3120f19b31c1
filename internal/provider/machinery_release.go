//go:build !neonbench

package provider

// Release builds: every part of the request machinery is on. The benchmark
// builds with -tags neonbench to switch parts off (machinery_bench.go).

// machineryIsOff reports whether part of the machinery was switched off:
// never, outside the benchmark's build.
func machineryIsOff(string) bool { return false }
