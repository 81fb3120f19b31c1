#!/usr/bin/env bash
# Drift check for CI: `terraform plan -detailed-exitcode` on an initialized
# working directory, with a short summary that names resources and actions,
# never attribute values.
#
#   scripts/drift-check.sh [-chdir=DIR] [-summary=FILE] [-terraform=PATH] [-- PLAN-OPTIONS...]
#
#   -chdir=DIR        the configuration to plan (default: the current directory)
#   -summary=FILE     also append the Markdown summary to FILE
#                     (default: $GITHUB_STEP_SUMMARY when it is set)
#   -terraform=PATH   the CLI to run (default: terraform; tofu works too)
#   PLAN-OPTIONS      passed to plan, such as -var-file=prod.tfvars or -lock-timeout=5m
#
# Exit status, as plan's:
#   0  no changes
#   2  changes: drift, or configuration not yet applied
#   1  error: the plan failed, or this script was called wrongly
#
# The summary goes to stdout; the errors' details and anything the CLI wrote
# to stderr go to stderr. The plan itself (with attribute values) is neither
# printed nor saved. Credentials come from the environment (NEON_API_KEY).
# Needs bash, awk and mktemp; no terminal and no input.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
fail() { printf 'drift-check: %s\n' "$*" >&2; exit 1; }

dir=. summary_file=${GITHUB_STEP_SUMMARY:-} tf=terraform
while (($# > 0)); do
  case $1 in
    -chdir=*) dir=${1#*=} ;;
    -summary=*) summary_file=${1#*=} ;;
    -terraform=*) tf=${1#*=} ;;
    -h | -help | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) usage >&2; fail "unknown argument: $1" ;;
  esac
  shift
done
[[ -n $dir && -d $dir ]] || fail "no such directory: ${dir:-(empty)}"
command -v "$tf" >/dev/null || fail "$tf not found on PATH"

work=$(mktemp -d "${TMPDIR:-/tmp}/drift-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

# -json: one JSON object per line (Terraform's machine-readable UI), read
# below for the planned changes, the changes found outside Terraform and the
# diagnostics. Nothing is read from stdin.
set +e
TF_IN_AUTOMATION=1 "$tf" "-chdir=$dir" plan -detailed-exitcode -input=false -json "$@" \
  </dev/null >"$work/plan.jsonl" 2>"$work/stderr"
rc=$?
set -e
case $rc in
  0 | 2) status=$rc ;;
  *) status=1 ;;
esac

# The summary (Markdown) to stdout, the errors' details to $work/details.
awk -v status="$status" -v rc="$rc" -v dir="$dir" -v cli="${tf##*/}" -v details="$work/details" '
  # The unescaped string value of the first "key":"..." in s ("" if none).
  # A JSON string never holds an unescaped quote, so the first match is a key.
  function jstr(s, key,    i, n, c, out) {
    i = index(s, "\"" key "\":\"")
    if (i == 0) return ""
    n = length(s)
    out = ""
    for (i += length(key) + 4; i <= n; i++) {
      c = substr(s, i, 1)
      if (c == "\"") break
      if (c != "\\") { out = out c; continue }
      c = substr(s, ++i, 1)
      if (c == "n") out = out "\n"
      else if (c == "t") out = out "\t"
      else if (c == "r" || c == "b" || c == "f") continue
      else if (c == "u") { out = out uchar(substr(s, i + 1, 4)); i += 4 }
      else out = out c
    }
    return out
  }
  # \uXXXX: the character below 128 (Terraform escapes <, > and &), else "?".
  function uchar(hex,    v, k, d) {
    v = 0
    for (k = 1; k <= 4; k++) {
      d = index("0123456789abcdef", tolower(substr(hex, k, 1))) - 1
      if (d < 0) return "?"
      v = v * 16 + d
    }
    return (v >= 32 && v < 127) ? sprintf("%c", v) : "?"
  }
  function cell(s) { gsub(/\|/, "\\|", s); gsub(/`/, "'\''", s); return "`" s "`" }
  function table(title, head, n, addr, act,    k) {
    if (n == 0) return
    printf "%s\n\n| Resource | %s |\n|---|---|\n", title, head
    for (k = 1; k <= n; k++) printf "| %s | %s |\n", cell(addr[k]), act[k]
    print ""
  }
  {
    type = jstr($0, "type")
    if (type == "planned_change") { nc++; caddr[nc] = jstr($0, "addr"); cact[nc] = jstr($0, "action") }
    else if (type == "resource_drift") { nd++; daddr[nd] = jstr($0, "addr"); dact[nd] = jstr($0, "action") }
    else if (type == "change_summary") total = jstr($0, "@message")
    else if (type == "diagnostic" && jstr($0, "severity") == "error") {
      ne++
      esum[ne] = jstr($0, "summary")
      eaddr[ne] = jstr($0, "address")
      print "Error: " esum[ne] (eaddr[ne] != "" ? " (" eaddr[ne] ")" : "") > details
      print jstr($0, "detail") "\n" > details
    }
  }
  END {
    where = (dir == ".") ? "" : " of " cell(dir)
    if (status == 0) {
      printf "### Drift check%s: no changes\n\n", where
      printf "`%s plan -detailed-exitcode` exited 0: the infrastructure matches the configuration.\n\n", cli
      table("Changed outside Terraform in attributes the configuration does not set, so nothing is planned:",
        "Change found", nd, daddr, dact)
    } else if (status == 2) {
      printf "### Drift check%s: changes found\n\n", where
      printf "`%s plan -detailed-exitcode` exited 2%s\n\n", cli, (total != "" ? ". " total : ".")
      table("Planned changes:", "Action", nc, caddr, cact)
      table("Changed outside Terraform since the last apply:", "Change found", nd, daddr, dact)
      printf "Run `%s plan` with the same configuration and state to see the attributes. Apply to put the " \
        "configuration back, or change the configuration to keep what was changed.\n", cli
    } else {
      printf "### Drift check%s: the plan failed\n\n", where
      printf "`%s plan` exited %d.", cli, rc
      if (ne > 0) {
        print " Errors:\n"
        for (k = 1; k <= ne; k++) printf "- %s%s\n", esum[k], (eaddr[k] != "" ? " (" cell(eaddr[k]) ")" : "")
      } else print ""
      print "\nThe job log has the details."
    }
  }
' "$work/plan.jsonl" >"$work/summary.md"

cat "$work/summary.md"
if [[ -n $summary_file ]]; then
  cat "$work/summary.md" >>"$summary_file" || echo "drift-check: could not write the summary to $summary_file" >&2
fi
if ((status == 1)); then
  [[ -s $work/details ]] && cat "$work/details" >&2
  [[ -s $work/stderr ]] && cat "$work/stderr" >&2
fi
exit "$status"
