#!/usr/bin/env bash
# kgb against llama.cpp's llama-server (outside CI: llama-server is not a
# Debian 12 package, and it needs a GGUF model).
#   scripts/interop-llama-server.sh MODEL.gguf [build]
# LLAMA_SERVER names the executable (default: llama-server on PATH). Any model
# works, a tiny or random-weight one included: the checks are about the
# protocol, not about solving tasks:
#   1. kgb chat, whole and streamed, OpenAI dialect; provider-specific fields
#      (--extra top_k=40, chat_template_kwargs) are accepted; usage is reported;
#   2. kgb chat in Anthropic's dialect (/v1/messages), where the server has it;
#   3. kgb run, refine and tool-agent (native function calling, --jinja), with
#      a small output cap so tool calls get cut off at max_tokens: the runs must
#      finish without an attempt stuck in HTTP 500 retries (a cut call is never
#      replayed) and with usage recorded for every call.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: scripts/interop-llama-server.sh MODEL.gguf [build]}
build=${2:-build}
kgb=$build/agent/cli/kgb
server=${LLAMA_SERVER:-llama-server}
command -v "$server" > /dev/null || { echo "no $server on PATH (set LLAMA_SERVER)" >&2; exit 2; }
[[ -x $kgb ]] || { echo "no $kgb: build first (scripts/setup.sh --no-run)" >&2; exit 2; }

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" -m "$model" --host 127.0.0.1 --port "$port" --jinja -c 8192 > "$work/server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2> /dev/null || true' EXIT
for _ in $(seq 600); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
  kill -0 "$server_pid" 2> /dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
url="http://127.0.0.1:$port/v1"
fail=0
check() {  # check NAME COMMAND...: runs it, keeps its output, reports
  if "${@:2}" > "$work/$1.out" 2>&1; then echo "ok    $1"; else echo "FAIL  $1 (see $work/$1.out)"; fail=1; fi
}
prompt=$'Write the kernel.\n\nTask: blas/saxpy\nPlatform: cpu-x86_64\n'

echo "== kgb against llama-server at $url ($(basename "$model"))"
check chat "$kgb" chat --provider llamacpp --base-url "$url" --model local --max-tokens 64 --json "$prompt"
check chat-stream "$kgb" chat --provider llamacpp --base-url "$url" --model local --max-tokens 64 --stream "$prompt"
check chat-extra "$kgb" chat --provider llamacpp --base-url "$url" --model local --max-tokens 16 \
  --extra top_k=40 --extra chat_template_kwargs.enable_thinking=false "Say hello."
grep -q '"reported": true' "$work/chat.out" || { echo "FAIL  usage not reported by llama-server"; fail=1; }
# /v1/messages exists in recent llama-server versions only: a 404 is reported, not failed.
if "$kgb" chat --provider anthropic --base-url "$url" --model local --max-tokens 32 "Say hello." > "$work/anthropic.out" 2>&1; then
  echo "ok    chat-anthropic"
else
  grep -q "HTTP 404" "$work/anthropic.out" && echo "skip  chat-anthropic (this llama-server has no /v1/messages)" ||
    { echo "FAIL  chat-anthropic (see $work/anthropic.out)"; fail=1; }
fi

for policy in refine tool-agent; do
  check "run-$policy" "$kgb" run --policy "$policy" --provider llamacpp --base-url "$url" --model local \
    --platform cpu-x86_64 --tasks blas/saxpy --max-iters 3 --max-output-tokens 96 --no-time --no-lint \
    --store "$work/runs.db" --run-id "llama-$policy" --json
  "$kgb" export "llama-$policy" --store "$work/runs.db" --table llm_calls --format jsonl > "$work/calls-$policy.jsonl"
  if grep -q '"http_status":500' "$work/calls-$policy.jsonl"; then
    echo "FAIL  run-$policy: a call ended in HTTP 500 (see $work/calls-$policy.jsonl)"
    fail=1
  fi
  if grep -q '"usage_source":"missing"' "$work/calls-$policy.jsonl"; then
    echo "FAIL  run-$policy: a call has no usage"
    fail=1
  fi
done
echo "outputs: $work"
exit $fail
