#!/usr/bin/env bash
# Times `ccc checkpoint --profile automated` against a local fake Linear
# (internal/cmd/linearfake) and counts the requests each run
# sends, on the three paths a session takes:
#
#   first      the agent's first checkpoint on an issue (a new issue each run)
#   steady     a checkpoint whose status changed (the same issue each run)
#   unchanged  a checkpoint whose status did not change but for the time
#   no tracker the steady checkpoint without LINEAR_API_KEY (no request), for
#              what the rest of the run costs
#
# beside one bare HTTP round trip to the same fake (curl, a GraphQL viewer
# query), the floor any tracker update pays; "added" is a run's median wall
# time over the round trip's.
#
#   bench/linear-checkpoint.sh [RUNS]          default 50 runs per case
set -euo pipefail

runs=${1:-50}
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ -z ${EPOCHREALTIME:-} ]]; then
  echo "needs bash 5 (EPOCHREALTIME)" >&2
  exit 1
fi
command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }

echo "building ccc and the fake..."
(cd "$repo" && go build -o "$work/ccc" ./cmd/ccc && go build -o "$work/linearfake" ./internal/cmd/linearfake)
ccc=$work/ccc

start_fake $((runs + 5))
export CCC_NOW=2026-11-21T13:45:00Z

requests() { curl -sf "$control/requests"; }

project=$work/project
mkdir -p "$project"
cd "$project"

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

# run CASE I: one checkpoint of the case; prints its wall time in µs.
run() {
  local args=(checkpoint --profile automated --agent main)
  local env=()
  case $1 in
  first) args+=(--issue "BENCH-$2" --next "task $2") ;;
  steady) args+=(--issue BENCH-$((runs + 5)) --next "step $2") ;;
  unchanged) args+=(--issue BENCH-$((runs + 5)) --next "same step") ;;
  offline) args+=(--issue BENCH-$((runs + 5)) --next "offline step $2") env=(-u LINEAR_API_KEY) ;;
  esac
  local t0=$EPOCHREALTIME
  env "${env[@]}" "$ccc" "${args[@]}" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  local t1=$EPOCHREALTIME
  echo $((${t1/./} - ${t0/./}))
}

roundtrip() { # one bare GraphQL round trip, timed inside curl; µs
  curl -s -o /dev/null -w '%{time_total}\n' -X POST "$api" \
    -H 'Content-Type: application/json' -H "Authorization: $LINEAR_API_KEY" \
    --data '{"query":"query Viewer { viewer { id } }"}' |
    awk '{ printf "%d\n", $1 * 1000000 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for _ in 1 2 3; do roundtrip >/dev/null; done

declare -A med reqs
cases=(first steady unchanged offline)
for c in "${cases[@]}"; do
  # Warm up, untimed: the page cache, the fake, the steady comment, and the
  # status the unchanged runs repeat.
  run "$c" $((runs + 1)) >/dev/null
  times=()
  before=$(requests)
  for ((i = 1; i <= runs; i++)); do
    times+=("$(run "$c" "$i")")
  done
  after=$(requests)
  med[$c]=$(printf '%s\n' "${times[@]}" | median)
  reqs[$c]=$(awk -v n=$((after - before)) -v r="$runs" 'BEGIN { printf "%.2f", n / r }')
done
rt=()
for ((i = 0; i < runs; i++)); do rt+=("$(roundtrip)"); done
med_rt=$(printf '%s\n' "${rt[@]}" | median)

echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $runs runs per case, $(go version | awk '{print $3}')"
printf '%-22s %14s %14s %14s\n' "case" "requests/run" "median ms" "added ms"
for c in "${cases[@]}"; do
  printf '%-22s %14s %14s %14s\n' "$c" "${reqs[$c]}" "$(ms "${med[$c]}")" "$(ms $((med[$c] - med_rt)))"
done
printf '%-22s %14s %14s %14s\n' "bare round trip (curl)" 1 "$(ms "$med_rt")" "-"
