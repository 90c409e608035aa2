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
# the 1-minute load average to fall to 1. Uses hyperfine when installed
# (apt-get install -y hyperfine), else a
# round-robin loop timed with date +%s%N. Prints `uptime` before and after;
# when the 1-minute load average is above 1 at either point the machine is
# shared and the ratios mean little, so it prints the raw figures with a
# warning and no ratios.
#
#   bench/startup.sh [RUNS]        default 30 runs per case
#   NO_HYPERFINE=1 bench/startup.sh   the loop even when hyperfine is installed
set -euo pipefail

runs=${1:-30}
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

echo "building ccc, the yardstick and the fake..."
build=(env CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
(cd "$repo" &&
  "${build[@]}" -o "$work/ccc" ./cmd/ccc &&
  "${build[@]}" -o "$work/yardstick" ./bench/yardstick &&
  go build -o "$work/linearfake" ./internal/cmd/linearfake)
ccc=$work/ccc
yardstick=$work/yardstick

start_fake 1
export CCC_NOW=2026-11-21T13:45:00Z
# No user configuration or state of this machine's user.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.state
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$work/empty" "$work/project"
echo '{}' >"$work/stdin.json"
# The yardstick's document, for curl.
echo '{"query":"query Viewer { viewer { id } }"}' >"$work/doc.json"

requests() { curl -sf "$control/requests" 2>/dev/null || echo "?"; }

names=(version "hook stop" yardstick curl checkpoint "no tracker")
# hyperfine runs the first and third without a shell; the others need one (a
# redirection, a step that changes), whose start-up hyperfine subtracts.
shells=(-N "--shell=bash" -N -N "--shell=bash" "--shell=bash")
dirs=("$work/empty" "$work/empty" "$work/empty" "$work/empty" "$work/project" "$work/project")
cmds=(
  "$ccc --version"
  "$ccc hook stop <$work/stdin.json"
  "$yardstick $api $LINEAR_API_KEY"
  "curl -sSf -o /dev/null -H Content-Type:application/json -H Authorization:$LINEAR_API_KEY --data-binary @$work/doc.json $api"
  "$ccc checkpoint --profile automated --agent main --issue BENCH-1 --next \"step \$RANDOM\$RANDOM\""
  "$ccc checkpoint --profile automated --agent main --skip-tracker --next \"quiet \$RANDOM\$RANDOM\""
)

# Each command once, untimed: it must work, and the checkpoint creates its
# progress file and the comment later runs update.
for i in "${!cmds[@]}"; do
  (cd "${dirs[$i]}" && bash -c "${cmds[$i]}" >/dev/null 2>"$work/stderr") ||
    { echo "${names[$i]} failed:" >&2; cat "$work/stderr" >&2; exit 1; }
done

wait_quiet "${QUIET_WAIT:-120}"
echo
echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $(go version | awk '{print $3}'), $runs runs per case"
echo "uptime before: $(uptime)"
load_before=$(load1)

declare -A med
reqs_before=$(requests)
expect=$((3 * runs)) # one request per yardstick, curl and checkpoint run
if [[ -z ${NO_HYPERFINE:-} ]] && command -v hyperfine >/dev/null; then
  echo "timing with $(hyperfine --version)"
  for i in "${!cmds[@]}"; do
    (cd "${dirs[$i]}" &&
      hyperfine "${shells[$i]}" --style none --warmup 3 --runs "$runs" \
        --export-csv "$work/case$i.csv" "${cmds[$i]}" >/dev/null)
    [[ $i == 2 || $i == 3 || $i == 4 ]] && expect=$((expect + 3)) # the warm-ups
    # command,mean,stddev,median,user,system,min,max (seconds); the command
    # may hold commas, so count fields from the end.
    med[$i]=$(awk -F, 'NR == 2 { printf "%d\n", $(NF-4) * 1000000 }' "$work/case$i.csv")
  done
else
  echo "hyperfine not installed: a round-robin loop timed with date +%s%N"
  declare -A times
  for ((r = 0; r < runs; r++)); do
    for i in "${!cmds[@]}"; do
      cmd=${cmds[$i]//\$RANDOM\$RANDOM/$r}
      t0=$(date +%s%N)
      (cd "${dirs[$i]}" && eval "$cmd" >/dev/null 2>&1)
      t1=$(date +%s%N)
      times[$i]+="$(((t1 - t0) / 1000)) "
    done
  done
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2086 # one figure a word
    med[$i]=$(printf '%s\n' ${times[$i]} | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  done
fi
reqs_after=$(requests)

echo "uptime after:  $(uptime)"
load_after=$(load1)

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
loaded=
if over1 "$load_before" || over1 "$load_after"; then loaded=1; fi
echo
if [[ -n $loaded ]]; then
  echo "WARNING: 1-minute load average $load_before before, $load_after after (> 1): the machine"
  echo "is shared, so these are raw figures only, upper bounds, and no ratios are reported."
  printf '%-12s %12s\n' case "median ms"
  for i in "${!cmds[@]}"; do printf '%-12s %12s\n' "${names[$i]}" "$(ms "${med[$i]}")"; done
else
  y=${med[2]}
  printf '%-12s %12s %16s %14s\n' case "median ms" "vs yardstick" "added ms"
  for i in "${!cmds[@]}"; do
    printf '%-12s %12s %16s %14s\n' "${names[$i]}" "$(ms "${med[$i]}")" \
      "$(awk -v a="${med[$i]}" -v b="$y" 'BEGIN { printf "%.2f×", a / b }')" "$(ms $((med[$i] - y)))"
  done
  echo "checkpoint vs curl: +$(ms $((med[4] - med[3]))) ms (issue 26: at most curl + 5 ms)"
fi
if [[ $reqs_before != "?" && $reqs_after != "?" ]]; then
  echo "requests to the fake while timing: $((reqs_after - reqs_before)), expected $expect" \
    "(one per yardstick, curl and checkpoint run: each checkpoint updated the comment)"
fi
