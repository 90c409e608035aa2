# What the bench scripts share; source it after `set -euo pipefail`:
#   repo      the repository root
#   work      a temporary directory, removed at exit (with the fake stopped)
#   start_fake N   starts $work/linearfake (build it first) with N issues and
#                  sets api and control (its GraphQL and control URLs),
#                  exporting LINEAR_API_URL and LINEAR_API_KEY
#   load1          the 1-minute load average; over1 L: whether L is above 1
#                  (a shared machine: ratios mean little, print none)
#   wait_quiet [S] wait up to S seconds (default 120) for the load to fall to 1
# shellcheck shell=bash
# shellcheck disable=SC2034 # used by the scripts that source this one
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
fake_pid=
cleanup() {
  if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

start_fake() {
  # The fake prints its GraphQL URL, then its control URL.
  "$work/linearfake" -issues "$1" >"$work/fake.out" &
  fake_pid=$!
  for _ in $(seq 100); do
    [[ $(wc -l <"$work/fake.out") -ge 2 ]] && break
    sleep 0.05
  done
  api=$(sed -n 1p "$work/fake.out")
  control=$(sed -n 2p "$work/fake.out")
  [[ -n $api && -n $control ]] || { echo "the fake did not start" >&2; exit 1; }
  export LINEAR_API_URL=$api
  LINEAR_API_KEY=$("$work/linearfake" -key)
  export LINEAR_API_KEY
}

load1() { uptime | sed -E 's/.*load averages?: *//' | cut -d, -f1 | tr -d ' '; }
over1() { awk -v l="$1" 'BEGIN { exit !(l > 1) }'; }

# wait_quiet [SECONDS]: after the builds, wait (up to SECONDS, default 120)
# for the 1-minute load average to fall to 1 or below, so that the builds'
# own load does not spoil the run; returns at once on a quiet machine.
wait_quiet() {
  local limit=${1:-120} waited=0
  while over1 "$(load1)"; do
    ((waited >= limit)) && return 0
    sleep 5
    waited=$((waited + 5))
  done
}
