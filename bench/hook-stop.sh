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
#
#   bench/hook-stop.sh capture [RUNS]  issues 24/26's capture hooks instead,
#                                      default 20 runs per case
#
# The capture mode runs the hooks as plugin/hooks/hooks.json wires them: its
# command for the event through sh -c (as Claude Code runs hook commands),
# the plugin's launcher finding this build through CCC_BIN, in a git project
# with a progress file, capture on. Cases: Stop after a TodoWrite with a tiny
# transcript, with 50 MB of tool output after the last answer (2 KB lines),
# and with one 50 MB line of it; PostToolUse of a TodoWrite with 200 items
# (one status flipped every run, so every run writes the file) at the end
# of a 10 MB transcript, as wired and ccc alone (no sh, no launcher: the
# hook process's own CPU). Each case is one loop of RUNS runs under GNU
# /usr/bin/time: wall and CPU (user+sys) per run, peak RSS of the largest
# process. Ratios to the tiny stop only when the 1-minute load is at most 1
# before and after (bench/lib.sh's load1).
set -euo pipefail

mode=stop
if [[ ${1:-} == capture ]]; then
  mode=capture
  shift
fi
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

echo "building ccc..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/ccc" ./cmd/ccc)
ccc=$work/ccc

# capture_bench RUNS: the capture mode (see the top of this file).
capture_bench() {
  local runs=$1
  [[ -x /usr/bin/time ]] || { echo "the capture mode needs GNU time at /usr/bin/time" >&2; exit 1; }
  export CLAUDE_PLUGIN_ROOT=$repo/plugin CCC_BIN=$ccc
  export HOME=$work/home CLAUDE_CONFIG_DIR=$work/claude XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.state
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  mkdir -p "$HOME" "$CLAUDE_CONFIG_DIR"
  local proj=$work/proj
  mkdir -p "$proj"
  git -C "$proj" init -q
  # A project with history: on an unborn branch ccc asks git three times.
  git -C "$proj" -c user.name=bench -c user.email=bench@example.invalid commit -q --allow-empty -m start
  printf '# Session Progress\n\n## Completed Tasks\n\n## Current Task\n\n## Remaining Tasks\n- Hand task\n\n## Blockers\n- None\n' \
    >"$proj/.ccc-progress.md"

  # The command hooks.json gives an event, unescaped.
  hookcmd() { sed -n "/\"$1\": \[/,/\"command\":/s/.*\"command\": \"\(.*\)\",*$/\1/p" "$repo/plugin/hooks/hooks.json" | sed 's/\\"/"/g'; }
  local stop_cmd post_cmd
  stop_cmd=$(hookcmd Stop)
  post_cmd=$(hookcmd PostToolUse)
  [[ -n $stop_cmd && -n $post_cmd ]] || { echo "no Stop or PostToolUse command in plugin/hooks/hooks.json" >&2; exit 1; }
  echo "as wired: Stop: $stop_cmd; PostToolUse: $post_cmd"

  local todos='{"todos":[{"content":"Write the lexer","status":"completed","activeForm":"Writing the lexer"},{"content":"Write the parser","status":"in_progress","activeForm":"Writing the parser"}]}'
  local head
  head=$(printf '%s\n' \
    '{"type":"user","message":{"role":"user","content":"Build the calculator."}}' \
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"TodoWrite","input":'"$todos"'}]}}' \
    '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Todos have been modified successfully."}]}}' \
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The lexer is done; the parser is next."}]}}')
  printf '%s\n' "$head" >"$work/tiny.jsonl"
  { printf '%s\n' "$head"
    awk 'BEGIN { x = sprintf("%2000s", ""); gsub(/ /, "x", x)
      for (i = 0; i < 26215; i++) printf "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t%d\",\"content\":\"%s\"}]}}\n", i, x }'
  } >"$work/tool50.jsonl"
  { printf '%s\n' "$head"
    printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"'
    head -c $((50 << 20)) /dev/zero | tr '\0' x
    printf '"}]}}\n'
  } >"$work/line50.jsonl"
  # PostToolUse: a 200-item TodoWrite as the newest line of a 10 MB transcript.
  local items200 flipped
  items200=$(awk -v flip=0 'BEGIN { for (i = 0; i < 200; i++) { s = i < 100 ? "completed" : (i == 100 ? "in_progress" : "pending")
    printf "%s{\"content\":\"Task number %d of the big refactor\",\"status\":\"%s\",\"activeForm\":\"Doing task %d\"}", (i ? "," : ""), i, s, i } }')
  flipped=${items200/\"Task number 150 of the big refactor\",\"status\":\"pending\"/\"Task number 150 of the big refactor\",\"status\":\"in_progress\"}
  { head -c $((10 << 20)) "$work/tool50.jsonl"
    printf '\n{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"TodoWrite","input":{"todos":[%s]}}]}}\n' "$items200"
  } >"$work/post.jsonl"
  local base='"session_id":"8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10","cwd":"'$proj'","permission_mode":"default"'
  for c in tiny tool50 line50; do
    printf '{%s,"transcript_path":"%s","hook_event_name":"Stop","stop_hook_active":false}\n' "$base" "$work/$c.jsonl" >"$work/$c.stdin"
  done
  printf '{%s,"transcript_path":"%s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[%s]},"tool_response":{}}\n' \
    "$base" "$work/post.jsonl" "$items200" >"$work/post.0.stdin"
  printf '{%s,"transcript_path":"%s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[%s]},"tool_response":{}}\n' \
    "$base" "$work/post.jsonl" "$flipped" >"$work/post.1.stdin"

  # measure NAME CMD STDIN0 [STDIN1]: RUNS runs in one loop under
  # /usr/bin/time, alternating the stdins; one run first, untimed.
  declare -gA wall cpu rss
  measure() {
    local name=$1 cmd=$2 in0=$3 in1=${4:-$3}
    (cd "$proj" && sh -c "$cmd" <"$in0" >/dev/null 2>"$work/$name.err")
    # shellcheck disable=SC2016 # the loop's own arguments, expanded by its bash
    /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" bash -c '
      for ((i = 0; i < $1; i++)); do
        in=$2; ((i % 2)) && in=$3
        sh -c "$4" <"$in" >/dev/null 2>>"$5"
      done' _ "$runs" "$in0" "$in1" "$cmd" "$work/$name.err"
    local e u s m
    read -r e u s m <"$work/$name.time"
    wall[$name]=$(awk -v t="$e" -v n="$runs" 'BEGIN { printf "%.1f", t * 1000 / n }')
    cpu[$name]=$(awk -v u="$u" -v s="$s" -v n="$runs" 'BEGIN { printf "%.1f", (u + s) * 1000 / n }')
    rss[$name]=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }')
    if [[ -s $work/$name.err ]]; then
      echo "$name said on stderr: $(sort -u "$work/$name.err" | head -3)"
    fi
  }
  echo "$(uname -sm), $(nproc 2>/dev/null || echo '?') CPUs, $runs runs per case"
  echo "uptime before: $(uptime)"
  local load_before load_after
  load_before=$(load1)
  cd "$proj"
  measure "stop tiny" "$stop_cmd" "$work/tiny.stdin"
  measure "stop 50 MB tool output" "$stop_cmd" "$work/tool50.stdin"
  measure "stop one 50 MB line" "$stop_cmd" "$work/line50.stdin"
  measure "post-tool-use 200 items" "$post_cmd" "$work/post.0.stdin" "$work/post.1.stdin"
  # The hook process alone, without sh and the launcher.
  measure "  ccc alone" "$(printf '%q' "$ccc") hook post-tool-use" "$work/post.0.stdin" "$work/post.1.stdin"
  echo "uptime after:  $(uptime)"
  load_after=$(load1)
  local ratios=1
  if over1 "$load_before" || over1 "$load_after"; then
    ratios=0
    echo "! load above 1: the machine is shared; raw figures only, no ratios"
  fi
  printf '%-26s %12s %12s %14s %9s %9s\n' case "wall ms/run" "CPU ms/run" "peak RSS MB" "wall/tiny" "CPU/tiny"
  local n
  for n in "stop tiny" "stop 50 MB tool output" "stop one 50 MB line" "post-tool-use 200 items" "  ccc alone"; do
    local rw="-" rc="-"
    if ((ratios)) && [[ $n == stop* ]]; then
      rw=$(awk -v a="${wall[$n]}" -v b="${wall[stop tiny]}" 'BEGIN { printf "%.2fx", a / b }')
      rc=$(awk -v a="${cpu[$n]}" -v b="${cpu[stop tiny]}" 'BEGIN { printf (b > 0 ? "%.2fx" : "-"), a / b }')
    fi
    printf '%-26s %12s %12s %14s %9s %9s\n' "$n" "${wall[$n]}" "${cpu[$n]}" "${rss[$n]}" "$rw" "$rc"
  done
}

if [[ $mode == capture ]]; then
  capture_bench "${1:-20}"
  exit 0
fi
runs=${1:-200}

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
