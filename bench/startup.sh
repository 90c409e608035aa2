#!/usr/bin/env bash
# Issue 26's yardstick, side by side: what ccc's start-up and hot paths cost
# next to the smallest Go program that does one tracker round trip
# (bench/yardstick: one HTTP POST of a GraphQL document, then exit).
#
#   version     ccc --version
#   hook stop   ccc hook stop, no state (stdin {} in an empty directory)
#   yardstick   bench/yardstick POSTing to the local fake Linear
#   curl        curl POSTing the yardstick's GraphQL document to the same
#               fake (issue 26's other bound: a checkpoint ≤ curl + 5 ms)
#   checkpoint  ccc checkpoint --profile automated, one Linear comment
#               update against the same fake (the --next step changes on
#               every run, so every run updates the comment)
#   no tracker  the same checkpoint with --skip-tracker: ccc's own per-run
#               work, without the request
#
# All three binaries are built the way releases are (CGO_ENABLED=0, -trimpath,
# -s -w); after the builds it waits up to QUIET_WAIT seconds (default 120) for
# the 1-minute load average to fall to 1. Every case is timed by
# bench/sidebyside: started the same way (fork and exec, no shell), round
# robin, medians of wall and CPU time. Prints `uptime` before and after; when
# the 1-minute load average is above 1 at either point the machine is shared
# and the ratios mean little, so it prints the raw figures with a warning and
# no ratios.
#
#   bench/startup.sh [RUNS]        default 30 runs per case
set -euo pipefail

runs=${1:-30}
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

echo "building ccc, the yardstick, the timer and the fake..."
build=(env CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
(cd "$repo" &&
  "${build[@]}" -o "$work/ccc" ./cmd/ccc &&
  "${build[@]}" -o "$work/yardstick" ./bench/yardstick &&
  go build -o "$work/sidebyside" ./bench/sidebyside &&
  go build -o "$work/linearfake" ./internal/cmd/linearfake)
ccc=$work/ccc
yardstick=$work/yardstick

start_fake 1
# The real clock, not CCC_NOW: each checkpoint's backups get their own stamp
# and the oldest is pruned, as in a session; with one fixed time every run
# replaced the same backup, and pruned nothing.
# No user configuration or state of this machine's user.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.state
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$work/empty" "$work/project"
echo '{}' >"$work/stdin.json"
# The yardstick's document, for curl.
echo '{"query":"query Viewer { viewer { id } }"}' >"$work/doc.json"

requests() { curl -sf "$control/requests" 2>/dev/null || echo "?"; }

# name|dir|stdin|command: the yardstick first, every ratio is to it.
cases=(
  "yardstick|$work/empty||$yardstick $api $LINEAR_API_KEY"
  "version|$work/empty||$ccc --version"
  "hook-stop|$work/empty|$work/stdin.json|$ccc hook stop"
  "curl|$work/empty||curl -sSf -o /dev/null -H Content-Type:application/json -H Authorization:$LINEAR_API_KEY --data-binary @$work/doc.json $api"
  "checkpoint|$work/project||$ccc checkpoint --profile automated --agent main --issue BENCH-1 --next step{i}"
  "no-tracker|$work/project||$ccc checkpoint --profile automated --agent main --skip-tracker --next quiet{i}"
)

# Once, untimed: the checkpoint creates its progress file and the comment
# later runs update.
(cd "$work/project" && "$ccc" checkpoint --profile automated --agent main --issue BENCH-1 --next start >/dev/null 2>"$work/stderr") ||
  { echo "checkpoint failed:" >&2; cat "$work/stderr" >&2; exit 1; }

wait_quiet "${QUIET_WAIT:-120}"
echo
echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $(go version | awk '{print $3}'), $runs runs per case"
echo "uptime before: $(uptime)"
load_before=$(load1)

reqs_before=$(requests)
warmup=3
expect=$((3 * (runs + warmup))) # one request per yardstick, curl and checkpoint run
"$work/sidebyside" -runs "$runs" -warmup "$warmup" "${cases[@]}" >"$work/times"
reqs_after=$(requests)

echo "uptime after:  $(uptime)"
load_after=$(load1)

loaded=
if over1 "$load_before" || over1 "$load_after"; then loaded=1; fi
echo
# sidebyside's lines: name, median wall ms, ratio to the yardstick, median CPU ms.
declare -A wall
while read -r name w _ _; do wall[$name]=$w; done <"$work/times"
if [[ -n $loaded ]]; then
  echo "WARNING: 1-minute load average $load_before before, $load_after after (> 1): the machine"
  echo "is shared, so these are raw figures only, upper bounds, and no ratios are reported."
  awk '{ printf "%-12s %10s ms wall %10s ms CPU\n", $1, $2, $4 }' "$work/times"
else
  printf '%-12s %12s %14s %12s %12s\n' case "median ms" "vs yardstick" "added ms" "CPU ms"
  awk -v y="${wall[yardstick]}" '{ printf "%-12s %12s %13.2f× %12.2f %12s\n", $1, $2, $3, $2 - y, $4 }' "$work/times"
  awk -v c="${wall[checkpoint]}" -v u="${wall[curl]}" 'BEGIN { printf "checkpoint vs curl: %+.2f ms (issue 26: at most curl + 5 ms)\n", c - u }'
fi
if [[ $reqs_before != "?" && $reqs_after != "?" ]]; then
  echo "requests to the fake while timing: $((reqs_after - reqs_before)), expected $expect" \
    "(one per yardstick, curl and checkpoint run: each checkpoint updated the comment)"
fi
