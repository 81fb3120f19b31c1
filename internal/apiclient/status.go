package apiclient

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
)

// The status rules: for each answer of the API (an HTTP status) and each way a
// request can end without one, whether it is retried, whether it is a
// refusal (the API did not apply the request), and whether it leaves the
// outcome of a write unknown. shouldRetry, Error.Is(ErrOutcomeUnknown),
// TransportError.Is and the provider's max_retries and retry_timeout
// descriptions read these tables; nothing else decides.

// retryFor says which requests an answer is repeated for at the HTTP level.
type retryFor int

const (
	retryNone  retryFor = iota // never: a retry cannot change the answer
	retryReads                 // GET only: a read is safe to repeat; a write that may have been applied is left to write.go
	retryAll                   // every method: the request was not applied
)

// statusRule is what the client does with one answer.
type statusRule struct {
	retry retryFor
	// refusal: the API did not apply the request, so a write sent again
	// cannot apply it twice.
	refusal bool
	// unknown: a write answered so may or may not have been applied
	// (ErrOutcomeUnknown); write.go reads back or re-sends as its endpoint
	// allows.
	unknown bool
	// uncounted: retried without spending RetryPolicy.MaxRetries; only
	// RetryPolicy.Timeout bounds it (the account is busy, not failing).
	uncounted bool
	why       string
}

// retries reports whether an answer to a request of method is repeated.
func (r statusRule) retries(method string) bool {
	return r.retry == retryAll || r.retry == retryReads && method == http.MethodGet
}

// unknownFor reports whether the answer leaves the outcome of method unknown:
// a read never has an outcome to lose.
func (r statusRule) unknownFor(method string) bool {
	return r.unknown && method != http.MethodGet
}

// statusRules holds the statuses the client tells apart; any other 4xx is
// clientErrorRule, any other 5xx serverErrorRule.
var statusRules = map[int]statusRule{
	http.StatusBadRequest:   {retry: retryNone, refusal: true, why: "the API refused the input (ErrBadRequest)"},
	http.StatusUnauthorized: {retry: retryNone, refusal: true, why: "the key is missing, invalid or revoked (ErrUnauthorized); nothing more is sent in this run (failfast.go)"},
	http.StatusForbidden:    {retry: retryNone, refusal: true, why: "the key's scope does not allow it (ErrForbidden)"},
	http.StatusNotFound:     {retry: retryNone, refusal: true, why: "not found, or not visible to this key (ErrNotFound)"},
	http.StatusConflict:     {retry: retryNone, refusal: true, why: "the thing already exists (ErrConflict)"},
	http.StatusLocked:       {retry: retryAll, refusal: true, why: "the branch is busy with another operation"},
	http.StatusTooManyRequests: {retry: retryAll, refusal: true, uncounted: true,
		why: "the account's rate limit: retried for as long as the time budget lasts (ErrRateLimited once it is spent)"},
	http.StatusInternalServerError: {retry: retryReads, unknown: true, why: "a server error that does not say whether a write was applied"},
	http.StatusNotImplemented:      {retry: retryNone, refusal: true, why: "the API does not offer this: no retry changes that"},
	http.StatusBadGateway:          {retry: retryReads, unknown: true, why: "a proxy lost the answer: a write may have been applied"},
	http.StatusServiceUnavailable:  {retry: retryAll, refusal: true, why: "the API refused the request without processing it"},
	http.StatusGatewayTimeout:      {retry: retryReads, unknown: true, why: "a proxy gave up waiting: a write may have been applied"},
}

// clientErrorRule is any 4xx not in statusRules; serverErrorRule any 5xx not
// in it (reported as it is for a write, retried for a read).
var (
	clientErrorRule = statusRule{retry: retryNone, refusal: true, why: "the API refused the request"}
	serverErrorRule = statusRule{retry: retryReads, why: "a server error the API does not document for writes: reported as it is"}
)

// ruleForStatus is the rule of an HTTP status of 400 or above.
func ruleForStatus(code int) statusRule {
	if r, ok := statusRules[code]; ok {
		return r
	}
	if code >= 500 {
		return serverErrorRule
	}
	return clientErrorRule
}

// transportKind names how a request ended without an HTTP response.
type transportKind string

const (
	transportCertificate                = transportKind(CauseCertificate)
	transportNoSuchHost                 = transportKind(CauseNoSuchHost)
	transportTLSHandshake               = transportKind(CauseTLSHandshake)
	transportRefused                    = transportKind(CauseRefused)
	transportKeyRefused   transportKind = "key-refused" // kept from the wire after a 401 (failfast.go)
	transportUnsent       transportKind = "unsent"      // any other failure before the request was written
	transportSent         transportKind = "sent"        // any other failure after it was written: its answer was lost
)

// transportRules holds what the client does with each kind of transport
// failure. A request counts as sent once its headers were written to a
// connection (withSentHook).
var transportRules = map[transportKind]statusRule{
	transportCertificate:  {retry: retryNone, refusal: true, why: "the certificate is not trusted or not for this host; nothing was sent"},
	transportNoSuchHost:   {retry: retryNone, refusal: true, why: "the host name does not resolve; nothing was sent"},
	transportTLSHandshake: {retry: retryNone, refusal: true, why: "the TLS handshake failed; nothing was sent"},
	transportKeyRefused:   {retry: retryNone, refusal: true, why: "the API refused the key earlier in this run; nothing was sent"},
	transportRefused:      {retry: retryAll, refusal: true, why: "nothing listens at the address: retried within refusedRetryWindow only"},
	transportUnsent:       {retry: retryAll, refusal: true, why: "the request never reached the server"},
	transportSent:         {retry: retryReads, unknown: true, why: "the request was sent and its answer lost: a write may have been applied"},
}

// kindOfTransport tells which row of transportRules a failure is. The causes
// no retry can fix come first, whether or not the request was sent.
func kindOfTransport(cause TransportCause, keyRefused, sent bool) transportKind {
	switch {
	case keyRefused:
		return transportKeyRefused
	case cause != CauseOther:
		return transportKind(cause)
	case sent:
		return transportSent
	}
	return transportUnsent
}

// withSentHook returns ctx with the "request was sent" hook: st.sentFlag is
// set once the request's headers are written to a connection, which moves a
// failure from transportUnsent to transportSent.
func withSentHook(ctx context.Context, st *callState) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { st.sentFlag.Store(true) }})
}

// RetriedStatuses lists, as prose joined by conj ("423 or 503"), the statuses
// retried for every method: those that count against max_retries
// (uncounted false), or those retried for as long as the time budget lasts
// (uncounted true: 429).
func RetriedStatuses(uncounted bool, conj string) string {
	return statusesWhere(func(r statusRule) bool { return r.retry == retryAll && r.uncounted == uncounted }, conj)
}

// UnknownOutcomeStatuses lists, as prose joined by conj, the statuses that
// leave the outcome of a write unknown.
func UnknownOutcomeStatuses(conj string) string {
	return statusesWhere(func(r statusRule) bool { return r.unknown }, conj)
}

// statusesWhere lists the statuses of statusRules whose rule matches, in
// order, as prose joined by conj.
func statusesWhere(match func(statusRule) bool, conj string) string {
	var names []string
	for _, code := range slices.Sorted(maps.Keys(statusRules)) {
		if match(statusRules[code]) {
			names = append(names, strconv.Itoa(code))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
