#!/usr/bin/env bash
# Every row of issue 26, side by side in one run, with the binaries built as
# releases are (CGO_ENABLED=0, -trimpath, -s -w):
#
#   checkpoint vs yardstick  ccc checkpoint --profile automated with one Linear
#                            comment update, vs bench/yardstick (one GraphQL
#                            POST, then exit) and curl POSTing the same
#                            document to the same fake (targets: <= 2.5x the
#                            yardstick, <= curl + 5 ms)
#   10k / 100k tasks         an automated checkpoint (no tracker) of a progress
#                            file of 10,000 and of 100,000 tasks, each run
#                            finishing one more: wall and CPU (targets: 10k
#                            <= 40 ms CPU; 100k <= 12x 10k and < 2 s)
#   5.3 MB peak RSS          the 100,000-task file (5.3 MB): peak RSS of its
#                            checkpoint (/usr/bin/time -f %M; target <= 100 MB)
#   status 1,000 / 10        ccc status over 1,000 agent records vs 10
#                            (target <= 3x)
#   parse + render 10k       the Go benchmarks of progress (target <= 10 ms)
#
# Every case is timed by bench/sidebyside (each started the same way, round
# robin; wall time and the process's CPU time from rusage). After the builds
# it waits up to QUIET_WAIT seconds (default 120) for the 1-minute load
# average to fall to 1. Prints `uptime` before and after; when the 1-minute
# load average is above 1 at either point the machine is shared, so it prints
# the raw figures with a warning and no ratios (times taken while other
# builds run are not figures; the CPU times and RSS are printed either way).
#
#   bench/issue26.sh [RUNS]        default 20 runs per fast case (5 for the
#                                  10k and 100k checkpoints)
set -euo pipefail

runs=${1:-20}
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || { echo "needs curl" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time at /usr/bin/time (CPU, peak RSS)" >&2; exit 1; }

echo "building ccc, the yardstick and the fake..." >&2
build=(env CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
(cd "$repo" &&
  "${build[@]}" -o "$work/ccc" ./cmd/ccc &&
  "${build[@]}" -o "$work/yardstick" ./bench/yardstick &&
  go build -o "$work/sidebyside" ./bench/sidebyside &&
  go build -o "$work/linearfake" ./internal/cmd/linearfake &&
  go test -c -o "$work/progress.test" ./progress/)
ccc=$work/ccc

start_fake 1
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.state
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset CCC_PROJECT_ROOT CCC_AGENT
mkdir -p "$HOME"
echo '{"query":"query Viewer { viewer { id } }"}' >"$work/doc.json"

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; } # KB

project() { # DIR: a git repository with one commit
  mkdir -p "$1"
  git -C "$1" init -q -b main
  git -C "$1" commit -q --allow-empty -m base
}
tasks() { # DIR N: a progress file of N tasks, one current
  {
    printf '# Session Progress\n\n**Session:** 2026-11-21T13:00:00Z\n**Execution Mode:** exec:quick\n\n## Completed Tasks\n\n## Current Task\n- task 0\n\n## Remaining Tasks\n'
    seq 1 "$2" | awk '{ printf "- task %d: migrate endpoint /api/v1/resource%d\n", $1, $1 }'
    printf '\n## Decisions Made\n\n## Blockers\n- None\n'
  } >"$1/.ccc-progress.md"
}

# Set-up, untimed.
p=$work/linear
project "$p"
(cd "$p" && "$ccc" checkpoint --profile automated --issue BENCH-1 --next start >/dev/null 2>&1)
for n in 10000 100000; do
  project "$work/t$n"
  tasks "$work/t$n" "$n"
  (cd "$work/t$n" && "$ccc" checkpoint --profile automated --skip-tracker --next start >/dev/null 2>&1)
done
for n in 10 1000; do
  d=$work/status$n
  project "$d"
  (cd "$d" && "$ccc" checkpoint --profile automated --skip-tracker --current "task" --add-task "next" >/dev/null 2>&1)
  rec=$d/.ccc/checkpoints/main.json
  for ((i = 1; i < n; i++)); do
    sed -e "s/\"agent\": \"main\"/\"agent\": \"a$i\"/" -e "s/\"id\": \"main-/\"id\": \"a$i-/" "$rec" >"$d/.ccc/checkpoints/a$i.json"
  done
done
# name|dir|stdin|command for bench/sidebyside, which starts every case the
# same way (fork and exec), round robin, and prints name, median wall ms,
# ratio to the first case, median CPU ms (user + system).
fast=(
  "yardstick|$work||$work/yardstick $api $LINEAR_API_KEY"
  "curl|$work||curl -sSf -o /dev/null -H Content-Type:application/json -H Authorization:$LINEAR_API_KEY --data-binary @$work/doc.json $api"
  "checkpoint|$p||$ccc checkpoint --profile automated --issue BENCH-1 --next step{i}"
  "status10|$work/status10||$ccc status"
  "status1000|$work/status1000||$ccc status"
)
# Each run finishes one more task (--done= : the current one).
big=(
  "t10k|$work/t10000||$ccc checkpoint --profile automated --skip-tracker --done="
  "t100k|$work/t100000||$ccc checkpoint --profile automated --skip-tracker --done="
)

wait_quiet "${QUIET_WAIT:-120}"
echo
echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $(go version | awk '{print $3}'), $runs runs per case"
echo "uptime before: $(uptime)"
load_before=$(load1)

"$work/sidebyside" -runs "$runs" "${fast[@]}" >"$work/fast"
"$work/sidebyside" -runs 5 -warmup 1 "${big[@]}" >"$work/big"
declare -A m cpu
while read -r name w _ c; do
  m[$name]=$(awk -v x="$w" 'BEGIN { printf "%d", x * 1000 }')   # µs
  cpu[$name]=$(awk -v x="$c" 'BEGIN { printf "%d", x * 1000 }') # µs
done < <(cat "$work/fast" "$work/big")
size=$(stat -c %s "$work/t100000/.ccc-progress.md")
kb=$(cd "$work/t100000" && rss "$ccc" checkpoint --profile automated --skip-tracker --done "")
bench=$(cd "$repo/progress" && "$work/progress.test" -test.run '^$' -test.bench 'Parse$/tasks=10000|Render/tasks=10000' -test.benchmem -test.benchtime 50x | grep -E '^Benchmark')

echo "uptime after:  $(uptime)"
load_after=$(load1)
loaded=
if over1 "$load_before" || over1 "$load_after"; then loaded=1; fi

echo
row() { printf '%-40s %14s %14s  %s\n' "$@"; }
row case "ccc (ms)" "compared (ms)" "result"
if [[ -n $loaded ]]; then
  echo "WARNING: 1-minute load average $load_before before, $load_after after (> 1): the machine is"
  echo "shared, so the wall times are raw upper bounds and no ratios are reported."
  row "checkpoint + Linear vs yardstick, curl" "$(ms "${m[checkpoint]}")" "$(ms "${m[yardstick]}"), $(ms "${m[curl]}")" "-"
  row "status 1,000 vs 10 records" "$(ms "${m[status1000]}")" "$(ms "${m[status10]}")" "-"
  row "checkpoint 100k vs 10k tasks (wall)" "$(ms "${m[t100k]}")" "$(ms "${m[t10k]}")" "-"
else
  row "checkpoint + Linear vs yardstick" "$(ms "${m[checkpoint]}")" "$(ms "${m[yardstick]}")" "$(ratio "${m[checkpoint]}" "${m[yardstick]}"); target <= 2.5x"
  row "checkpoint + Linear vs curl" "$(ms "${m[checkpoint]}")" "$(ms "${m[curl]}")" "+$(ms $((m[checkpoint] - m[curl]))) ms; target <= +5 ms"
  row "status 1,000 vs 10 records" "$(ms "${m[status1000]}")" "$(ms "${m[status10]}")" "$(ratio "${m[status1000]}" "${m[status10]}"); target <= 3x"
  row "checkpoint 100k vs 10k tasks (wall)" "$(ms "${m[t100k]}")" "$(ms "${m[t10k]}")" "$(ratio "${m[t100k]}" "${m[t10k]}"); target <= 12x, < 2 s"
fi
row "checkpoint 100k vs 10k tasks (CPU)" "$(ms "${cpu[t100k]}")" "$(ms "${cpu[t10k]}")" "$(ratio "${cpu[t100k]}" "${cpu[t10k]}"); targets: 10k <= 40 ms, 100k < 2 s"
row "5.3 MB file (100k tasks): peak RSS" "$((kb / 1024)) MB" "$(awk -v s="$size" 'BEGIN { printf "%.1f MB", s / 1048576 }')" "target <= 100 MB"
echo
echo "parse and render of 10,000 tasks (target: together <= 10 ms):"
echo "$bench"
reqs=$(curl -sf "$control/requests" 2>/dev/null || echo "?")
echo "requests to the fake: $reqs (one per yardstick, curl and checkpoint run, and the set-up's)"
