#!/usr/bin/env bash
# Builds a pinned OpenTofu from the Go module proxy into a cached tools
# directory outside the repository, once, and prints the binary's path.
#
# OpenTofu's module has a replace directive, so `go install …@version` refuses
# it; the module is downloaded instead and built from a writable copy.
# About 7 minutes on 2 cores the first time; instant afterwards. A tofu on
# PATH that is already that version (a CI job's setup-opentofu) is used as it
# is.
#
#   TOFU_VERSION     version to build (default 1.12.6)
#   NEON_TOOLS_DIR   cache directory (default ${XDG_CACHE_HOME:-~/.cache}/terraform-provider-neon/tools)
set -euo pipefail

version="${TOFU_VERSION:-1.12.6}"
tools="${NEON_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-neon/tools}"
bin="$tools/tofu-$version/tofu"

if [[ -x "$bin" ]] && "$bin" version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
if onpath=$(command -v tofu) && [[ $("$onpath" version 2>/dev/null | head -n 1) == "OpenTofu v$version" ]]; then
  echo "$onpath"
  exit 0
fi

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -mod=mod"
echo "building OpenTofu $version into $bin (first time only, several minutes)" >&2
src=$(go mod download -json "github.com/opentofu/opentofu@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -n "$src" && -d "$src" ]] || { echo "could not download github.com/opentofu/opentofu@v$version" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tofu-build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -R "$src/." "$work/"
chmod -R u+w "$work"
mkdir -p "$(dirname "$bin")"
(cd "$work" && go build -trimpath -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$bin.tmp" ./cmd/tofu)
mv "$bin.tmp" "$bin"
"$bin" version >&2
echo "$bin"
