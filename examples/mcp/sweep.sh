#!/usr/bin/env bash
# A benchmark sweep with an external agent: one `kgb mcp-server --http` for the
# whole sweep (one run in the store, one timing job at a time), one agent
# process per task with its own MCP configuration and prompt, then the
# records read back: token usage the agents printed is imported with
# `kgb mcp-usage`, and `kgb report` prints the run.
#
#   examples/mcp/sweep.sh --agent 'COMMAND' [--tasks 'blas/*,aten/add'] [--platform cpu-x86_64]
#                         [--store runs.db] [--run RUN_ID] [--parallel 2] [--out DIR]
#                         [--agent-timeout SECONDS] [--no-import-usage] [-- kgb mcp-server flags...]
#
# COMMAND is run with bash once per task, after these substitutions:
#   {task}        the task id                {url}         the session's MCP URL (with ?task=)
#   {mcp_config}  an mcp.json for the task   {prompt}      the prompt, shell-quoted
#   {prompt_file} the prompt in a file       {out_dir}     the task's output folder
# The bearer token is in $KGB_MCP_TOKEN (and in the mcp.json headers). The agent's
# stdout goes to {out_dir}/agent.out: when it ends with a usage JSON (Claude Code's
# `--output-format json` result, or any shape `kgb mcp-usage` reads) it is imported.
#
# Claude Code, for example:
#   examples/mcp/sweep.sh --tasks 'blas/*' --agent \
#     'claude -p {prompt} --mcp-config {mcp_config} --strict-mcp-config --allowedTools mcp__kgb --output-format json'
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kgb="${KGB:-$root/build/agent/cli/kgb}"

agent="" tasks="*" platform="cpu-x86_64" store="kgb-runs.db" run="" parallel=2 out="" agent_timeout=0 import_usage=1
server_flags=()
while (($#)); do
  case "$1" in
    --agent) agent="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    --platform) platform="$2"; shift 2 ;;
    --store) store="$2"; shift 2 ;;
    --run) run="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --agent-timeout) agent_timeout="$2"; shift 2 ;;
    --no-import-usage) import_usage=0; shift ;;
    --) shift; server_flags=("$@"); break ;;
    *) echo "sweep.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$agent" ]] || { echo "sweep.sh: --agent 'COMMAND' is required" >&2; exit 2; }
[[ -x "$kgb" ]] || { echo "sweep.sh: $kgb is not built (or set KGB=path/to/kgb)" >&2; exit 2; }
[[ -n "$out" ]] || out="$(mktemp -d "${TMPDIR:-/tmp}/kgb-sweep-XXXXXX")"
mkdir -p "$out"

# The tasks: every id `kgb tasks` lists that matches one of the globs.
selected=()
while read -r id _; do
  IFS=',' read -ra globs <<< "$tasks"
  for g in "${globs[@]}"; do
    # shellcheck disable=SC2053  # the glob is meant to match
    if [[ "$id" == $g ]]; then selected+=("$id"); break; fi
  done
done < <("$kgb" tasks 2>/dev/null)
((${#selected[@]})) || { echo "sweep.sh: no task matches '$tasks'" >&2; exit 2; }

KGB_MCP_TOKEN="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
export KGB_MCP_TOKEN
run_flag=()
[[ -n "$run" ]] && run_flag=(--run "$run")
"$kgb" mcp-server --http --port 0 --info-file "$out/server.json" --token-env KGB_MCP_TOKEN \
  --store "$store" --platform "$platform" --tasks "$tasks" "${run_flag[@]}" "${server_flags[@]}" \
  > "$out/server.log" 2>&1 &
server_pid=$!
stop_server() {
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap stop_server EXIT
for _ in $(seq 600); do
  [[ -f "$out/server.json" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "sweep.sh: the server did not start:" >&2; cat "$out/server.log" >&2; exit 3; }
  sleep 0.1
done
[[ -f "$out/server.json" ]] || { echo "sweep.sh: the server did not start within 60 s" >&2; exit 3; }
url="$(sed -n 's/^ *"url": "\(.*\)",\{0,1\}$/\1/p' "$out/server.json")"
run="$(sed -n 's/^ *"run_id": "\(.*\)",\{0,1\}$/\1/p' "$out/server.json")"
echo "sweep: ${#selected[@]} task(s) on $platform, run $run, server $url, output in $out"

substitute() {  # template task dir task_url
  local cmd="$1" quoted
  printf -v quoted '%q' "$(cat "$2/prompt.txt")"
  cmd="${cmd//\{task\}/$3}"
  cmd="${cmd//\{url\}/$4}"
  cmd="${cmd//\{mcp_config\}/$2/mcp.json}"
  cmd="${cmd//\{prompt_file\}/$2/prompt.txt}"
  cmd="${cmd//\{out_dir\}/$2}"
  cmd="${cmd//\{prompt\}/$quoted}"
  printf '%s' "$cmd"
}

started=$SECONDS
agents=()  # the agent processes (a bare `wait` would wait for the server too)
for task in "${selected[@]}"; do
  dir="$out/${task//\//__}"
  mkdir -p "$dir"
  task_url="$url?task=$task"
  cat > "$dir/mcp.json" <<EOF
{
  "mcpServers": {
    "kgb": {
      "type": "http",
      "url": "$task_url",
      "headers": { "Authorization": "Bearer $KGB_MCP_TOKEN" }
    }
  }
}
EOF
  cat > "$dir/prompt.txt" <<EOF
Solve the KernelGenBench task $task on the platform $platform with the tools of the kgb MCP server:
read the task with show_task (or the solve_task prompt), check your kernel with lint, compile and
evaluate, and submit your final kernel with submit.
EOF
  cmd="$(substitute "$agent" "$dir" "$task" "$task_url")"
  (
    cd "$dir"
    rc=0
    if ((agent_timeout > 0)); then timeout "$agent_timeout" bash -c "$cmd" || rc=$?; else bash -c "$cmd" || rc=$?; fi \
      > agent.out 2> agent.err
    echo "$rc" > agent.status
  ) &
  agents+=($!)
  while true; do  # at most --parallel agents at once
    live=()
    for pid in "${agents[@]}"; do kill -0 "$pid" 2>/dev/null && live+=("$pid"); done
    ((${#live[@]} < parallel)) && break
    wait -n "${live[@]}" 2>/dev/null || true
  done
done
for pid in "${agents[@]}"; do wait "$pid" 2>/dev/null || true; done
echo "sweep: agents done in $((SECONDS - started)) s"

# Every session ends with the server; then the attempts can take the usage.
stop_server
trap - EXIT
for task in "${selected[@]}"; do
  dir="$out/${task//\//__}"
  status="$(cat "$dir/agent.status" 2>/dev/null || echo '?')"
  [[ "$status" == 0 ]] || echo "sweep: the agent on $task exited with status $status (see $dir/agent.err)"
  if ((import_usage)) && [[ -s "$dir/agent.out" ]]; then
    "$kgb" mcp-usage --store "$store" --run "$run" --task "$task" --file "$dir/agent.out" \
      || echo "sweep: no usage imported for $task"
  fi
done
"$kgb" report "$run" --store "$store"
