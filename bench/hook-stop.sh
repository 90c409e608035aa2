#!/usr/bin/env bash
# Times `ccc hook stop` as Claude Code runs it: one process per stop, the
# hook's JSON on stdin, CCC_PROJECT_ROOT set (as CCC's own tests set it),
# on the paths a CCC session takes. The state file is restored before every
# run (outside the timing), so each run takes the same path.
#
#   bench/hook-stop.sh [RUNS]          default 200 runs per case
#
# Set CCC_STOP_HANDLER=/path/to/ccc-stop-handler.sh to time CCC's bash
# handler on the same inputs (hooks/scripts/ccc-stop-handler.sh in
# cianos95-dev/claude-command-centre, Apache-2.0; not vendored here). It
# needs jq, and mikefarah's yq for the case with a preferences file (the
# Python yq answers in JSON, which the handler does not expect: that case is
# skipped for it). The loop then ends with a table of means and the ratio.
# Uses hyperfine when it is installed, else a bash loop on $EPOCHREALTIME.
# Ends with the in-process Go benchmark (go test -bench BenchmarkStop).
set -euo pipefail

runs=${1:-200}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building ccc..." >&2
(cd "$repo" && go build -o "$work/ccc" ./cmd/ccc)
ccc=$work/ccc

state() { # the state of a quick-mode execution on task 1 of 3, with overrides
  cat <<EOF
{
  "phase": "${PHASE:-execution}",
  "taskIndex": 1,
  "totalTasks": 3,
  "taskIteration": ${TASK_ITER:-1},
  "maxTaskIterations": 5,
  "globalIteration": 4,
  "maxGlobalIterations": 50,
  "executionMode": "quick",
  "awaitingGate": null,
  "linearIssue": "CIA-12",
  "specPath": "docs/spec.md",
  "replanCount": 0,
  "activeTaskFiles": ["parser.go", "parser_test.go"]
}
EOF
}

input() { # a Stop hook input; $1 is last_assistant_message ("" leaves it out)
  local msg=""
  [[ -n $1 ]] && msg=",\"last_assistant_message\":\"$1\""
  printf '{"session_id":"8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10","transcript_path":"%s","cwd":"%s","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false%s}\n' \
    "${TRANSCRIPT:-/nonexistent.jsonl}" "$work" "$msg"
}

# A 2 MB Claude Code transcript whose last assistant record does not signal
# TASK_COMPLETE (a retry), followed by a large tool result.
transcript=$work/transcript.jsonl
{
  filler=$(printf 'x%.0s' $(seq 400))
  for ((i = 0; i < 2400; i++)); do
    printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s"}]},"uuid":"u-%d"}\n' "$i" "$filler" "$i"
    printf '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Step %d done."},{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"parser.go"}}]},"uuid":"a-%d"}\n' "$i" "$i" "$i"
  done
  printf '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading the grammar first."}]}}\n'
  printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"%s"}]}}\n' "$filler$filler$filler"
} >"$transcript"

# case NAME STATE-ENV INPUT-MESSAGE [TRANSCRIPT]
cases=()
mkcase() {
  local name=$1 env=$2 msg=$3 dir=$work/$1
  mkdir -p "$dir"
  (eval "$env"; state) >"$dir/state.orig"
  TRANSCRIPT=${4:-} input "$msg" >"$dir/stdin.json"
  cases+=("$name")
}
mkcase allow-phase        "PHASE=review"  "working on it"
mkcase retry-message      ""              "Still on it: numbers are next."
mkcase retry-transcript   ""              ""  "$transcript"
mkcase retry-prefs        ""              "Still on it: numbers are next."
printf '%s\n' 'execution:' '  max_task_iterations: 8' 'planning:' '  prioritization_framework: rice' \
  'eval:' '  cost_profile: budget' '  max_budget_usd: 25' >"$work/retry-prefs/.ccc-preferences.yaml"
mkcase halt-checkpoint    "TASK_ITER=5"   "still failing"
mkcase next-checkpoint    ""              "Parser done, tests pass. TASK_COMPLETE"
mkdir -p "$work/allow-no-state"
input "TASK_COMPLETE" >"$work/allow-no-state/stdin.json"
cases=(allow-no-state "${cases[@]}")

# The bash handler reads preferences with mikefarah's yq only.
skip_bash_prefs=1
if yq --version 2>&1 | grep -q mikefarah; then skip_bash_prefs=0; fi

restore() { # put the case's state back
  local dir=$work/$1
  if [[ -f $dir/state.orig ]]; then cp "$dir/state.orig" "$dir/.ccc-state.json"; fi
}

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

loop() { # NAME CMD...: mean/median/min/max wall time over $runs runs
  local name=$1 dir=$work/$1
  shift
  local -a times=()
  for ((i = 0; i < runs + 5; i++)); do
    restore "$name"
    local t0=$EPOCHREALTIME
    CCC_PROJECT_ROOT=$dir "$@" <"$dir/stdin.json" >/dev/null 2>&1 || true
    local t1=$EPOCHREALTIME
    ((i < 5)) && continue # warm-up
    times+=($(((${t1/./} - ${t0/./}))))
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  local min max med sum=0
  min=$(head -1 <<<"$sorted")
  max=$(tail -1 <<<"$sorted")
  med=$(sed -n "$((runs / 2 + 1))p" <<<"$sorted")
  for t in "${times[@]}"; do sum=$((sum + t)); done
  printf '%-18s %-8s mean %7s ms  median %7s ms  min %7s ms  max %7s ms\n' \
    "$name" "$label" "$(ms $((sum / runs)))" "$(ms "$med")" "$(ms "$min")" "$(ms "$max")"
  means["$label/$name"]=$((sum / runs))
}
declare -A means=()

bench() { # LABEL CMD...
  label=$1
  shift
  for name in "${cases[@]}"; do
    if [[ $label == bash && $name == *prefs && $skip_bash_prefs == 1 ]]; then
      printf '%-18s %-8s skipped: needs mikefarah yq (found: %s)\n' "$name" "$label" "$(yq --version 2>&1 | head -1)"
      continue
    fi
    if command -v hyperfine >/dev/null 2>&1; then
      local dir=$work/$name
      CCC_PROJECT_ROOT=$dir hyperfine --style basic --warmup 5 --runs "$runs" \
        --prepare "$(declare -f restore); work='$work'; restore $name" \
        --command-name "$label $name" "$(printf '%q ' "$@") < '$dir/stdin.json'"
    else
      loop "$name" "$@"
    fi
  done
}

if [[ -z ${EPOCHREALTIME:-} ]] && ! command -v hyperfine >/dev/null 2>&1; then
  echo "needs bash 5 (EPOCHREALTIME) or hyperfine" >&2
  exit 1
fi

echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $runs runs per case"
bench ccc "$ccc" hook stop
if [[ -n ${CCC_STOP_HANDLER:-} ]]; then
  if ! command -v jq >/dev/null 2>&1; then
    echo "CCC_STOP_HANDLER needs jq on PATH; not timed" >&2
  else
    bench bash bash "$CCC_STOP_HANDLER"
    if ((${#means[@]} > 0)); then
      echo
      printf '%-18s %10s %10s %9s\n' case "ccc ms" "bash ms" "bash/ccc"
      for name in "${cases[@]}"; do
        c=${means[ccc/$name]:-} b=${means[bash/$name]:-}
        [[ -n $c && -n $b ]] || continue
        printf '%-18s %10s %10s %8sx\n' "$name" "$(ms "$c")" "$(ms "$b")" "$(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.0f", b / c }')"
      done
    fi
  fi
fi

echo
echo "in process (no fork/exec, no checkpoint):"
(cd "$repo" && go test -run '^$' -bench BenchmarkStop -benchtime "${runs}x" ./cmd/ccc/internal/hook/ | grep Benchmark)
