package main

import (
	"math"
	"net/http"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// This file holds the ideal schedules: how soon a phase's requests could all
// have passed the documented limits under each reading, had they all been
// ready at once.

// readings are the two ways the emulator can count the documented limits.
var readings = []emulator.RateLimitReading{emulator.ReadingBuckets, emulator.ReadingWindows}

// Neon's documented limits, which the emulator enforces.
const (
	accountRPM = 700 // per account and minute
	routeRPS   = 40  // per route and second; also what either reading lets through at once
)

// served is the number of requests of route (every route: "") that the
// limits let through, 429s left out: the requests the phase needed.
func served(s emulator.Stats, route string) int {
	n := 0
	for k, byStatus := range s.Requests {
		if route != "" && k != route {
			continue
		}
		for status, c := range byStatus {
			if status != http.StatusTooManyRequests {
				n += c
			}
		}
	}
	return n
}

// idealSchedule is when the last of the phase's requests (those served)
// could pass the limits under reading if all were ready at once: its own
// latency and Terraform's are not counted.
//
//   - buckets: the account's holds 40 and refills at 700/60 per second, a
//     route's holds 40 and refills at 40/s;
//   - windows: 700 in any 60 s on the account, 40 in any second on a route.
func idealSchedule(s emulator.Stats, reading emulator.RateLimitReading) time.Duration {
	var secs float64
	per := func(n, burst int, refill float64) float64 { return max(0, float64(n-burst)/refill) }
	windows := func(n, limit int, span float64) float64 {
		return math.Max(0, math.Ceil(float64(n)/float64(limit))-1) * span
	}
	if reading == emulator.ReadingWindows {
		secs = windows(served(s, ""), accountRPM, 60)
	} else {
		secs = per(served(s, ""), routeRPS, accountRPM/60.0)
	}
	for route := range s.Requests {
		n := served(s, route)
		if reading == emulator.ReadingWindows {
			secs = max(secs, windows(n, routeRPS, 1))
		} else {
			secs = max(secs, per(n, routeRPS, routeRPS))
		}
	}
	return time.Duration(secs * float64(time.Second))
}

// maxShare429 is the most 429s a run alone may meet, as a share of its
// requests: none from windows (1 % for what the server's own timing does),
// and under the buckets those of learning that the account counts by them.
func maxShare429(reading emulator.RateLimitReading) float64 {
	if reading == emulator.ReadingWindows {
		return 1
	}
	return 5
}
