#!/usr/bin/env bash
# make test-remote: the acceptance tests against neon-emulator started as a
# program of its own, over TLS, with the documented rate limits (700 requests
# per minute per account, 40 per second per route), reached only over the
# network: make test-live, with the emulator's base URL, key and CA. The
# server is this repository's emulator (NEON_TEST_EMULATOR=1), so an answer
# that breaks the API reference fails the test, as in-process, instead of
# being recorded as a deviation.
#
# The CA goes to the tests through SSL_CERT_FILE, bundled with the system's
# CAs so that nothing else the run reaches stops trusting its servers. Extra
# arguments go to make test-live's go test (for example -run TestAccAuthDomain).
# REMOTE_TARGET=test-walk runs the random walks there instead (make
# test-walk-remote).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d "${TMPDIR:-/tmp}/neon-remote.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

go build -o "$dir/neon-emulator" ./cmd/neon-emulator
# The account and route limits are the emulator's defaults: Neon's documented
# ones, read as windows (429 only past 700 in any 60 s or 40 in any second on
# a route); the provider paces itself within them.
# A new Data API boots for a fifth of a second (its default is a second): the
# provider waits for it as for Neon's, with fewer reads of the account's budget.
# Its standard output repeats the ready file, key included; only its
# complaints (standard error) are kept, for a failed run.
"$dir/neon-emulator" -tls -listen 127.0.0.1:0 -ready-file "$dir/ready" -tls-ca-file "$dir/ca.pem" -data-api-boot 200ms \
  >/dev/null 2>"$dir/emulator.log" &
pid=$!
for _ in $(seq 1 300); do
  [ -s "$dir/ready" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$dir/emulator.log" >&2
    echo "neon-emulator exited before it was ready" >&2
    exit 1
  fi
  sleep 0.1
done
[ -s "$dir/ready" ] || { cat "$dir/emulator.log" >&2; echo "neon-emulator was not ready after 30 s" >&2; exit 1; }

base_url=$(sed -n 's/^NEON_API_BASE_URL=//p' "$dir/ready")
api_key=$(sed -n 's/^NEON_API_KEY=//p' "$dir/ready")
bundle="$dir/ca-bundle.pem"
for system in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
  if [ -f "$system" ]; then
    cat "$system" >"$bundle"
    break
  fi
done
cat "$dir/ca.pem" >>"$bundle"
echo "neon-emulator serves $base_url (TLS, documented rate limits); its CA is in SSL_CERT_FILE"

status=0
NEON_API_BASE_URL=$base_url NEON_API_KEY=$api_key SSL_CERT_FILE=$bundle NEON_TEST_EMULATOR=1 \
  make --no-print-directory "${REMOTE_TARGET:-test-live}" LIVE_ARGS="$(printf '%q ' "$@")" || status=$?
if [ "$status" -ne 0 ]; then
  echo "neon-emulator's log:" >&2
  tail -n 50 "$dir/emulator.log" >&2
fi
exit "$status"
