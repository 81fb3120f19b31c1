#!/usr/bin/env bash
# Every example must be terraform-fmt clean and pass `terraform validate`
# against the locally built provider (dev_overrides: no init, no registry),
# with the terraform on PATH (make check-examples puts the pinned one first:
# import blocks with an identity need Terraform 1.12, .tfquery.hcl files 1.14).
set -euo pipefail
shopt -s nullglob
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/neon-examples.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

(cd "$ROOT" && go build -o "$WORK/bin/terraform-provider-neon" .)
cat >"$WORK/terraformrc" <<CFG
provider_installation {
  dev_overrides {
    "neon-auth/neon" = "$WORK/bin"
  }
  direct {}
}
CFG
export TF_CLI_CONFIG_FILE="$WORK/terraformrc"
terraform fmt -check -recursive "$ROOT/examples"

failed=0 count=0
# validate checks one example directory, leaving out the file named by skip:
# import-by-string-id.tf and import-by-identity.tf import the same object
# (two ways), so each is validated without the other.
validate() {
  local dir=$1 skip=$2 rel=${1#"$ROOT"/} dst
  dst="$WORK/check/$rel${skip:+-without-$skip}"
  mkdir -p "$dst"
  local files=("$dir"/*.tf "$dir"/*.tfquery.hcl) query=()
  cp "${files[@]}" "$dst"/
  [[ -z $skip ]] || rm -f "$dst/$skip"
  # Examples that show one resource leave out the provider requirement;
  # add it so that the dev override applies.
  if ! grep -q 'required_providers' "$dst"/*.tf /dev/null; then
    printf 'terraform {\n  required_providers {\n    neon = { source = "neon-auth/neon" }\n  }\n}\n' >"$dst/zz_providers.tf"
  fi
  # Queries (list blocks of `terraform query`) are validated with -query.
  compgen -G "$dst/*.tfquery.hcl" >/dev/null && query=(-query)
  # import blocks need their target in the same module, which the example has.
  count=$((count + 1))
  if out=$(cd "$dst" && terraform validate -no-color "${query[@]}" </dev/null 2>&1); then
    echo "ok    $rel${skip:+ (without $skip)}"
  else
    echo "FAIL  $rel${skip:+ (without $skip)}"; echo "$out" | grep -v -i 'development overrides\|dev_overrides\|neon-auth/neon in\|may therefore not match\|published releases' | sed 's/^/      /'
    failed=$((failed + 1))
  fi
}
while IFS= read -r dir; do
  if [[ -f $dir/import-by-identity.tf && -f $dir/import-by-string-id.tf ]]; then
    validate "$dir" import-by-identity.tf
    validate "$dir" import-by-string-id.tf
  else
    validate "$dir" ""
  fi
done < <(find "$ROOT/examples" \( -name '*.tf' -o -name '*.tfquery.hcl' \) -printf '%h\n' | sort -u)
echo "examples: $((count - failed)) valid, $failed invalid"
[[ $failed -eq 0 ]]
