#!/usr/bin/env bash
# validate-queue.sh KGB QUEUE RESULTS SECONDS [PARALLEL]: `kgb validate` of the
# "platform task" lines of the file QUEUE (in order; '#' starts a comment), at
# most PARALLEL (default 8) at a time, one process per line, until SECONDS have
# passed. Each finished line leaves RESULTS/<platform>__<source>__<name>.txt (the
# validation's output and a last line "# rc=.. wall=..s time-budget=.."); a line
# already there is skipped, so a second call with the same RESULTS goes on where
# the first stopped. That is what a GPU host lent in short calls needs: a full
# timed sweep of both GPU platforms takes longer than one call may run. A line
# cut by the deadline leaves <...>.cut and runs again next time. No line starts
# with less than 40 s left. At the end the table rows of every finished line
# are printed, platform first. KGB_TIME_BUDGET (default 0.5) is the per-case
# timing budget, KGB_VALIDATE_ARGS extra options (e.g. --no-time).
# Exit status: 1 when a finished line failed, 3 when lines are left, else 0.
set -uo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 KGB QUEUE RESULTS SECONDS [PARALLEL]" >&2
  exit 2
fi
KGB=$1 QUEUE=$2 RESULTS=$3 SECONDS_ALLOWED=$4 PARALLEL=${5:-8}
[ -x "$KGB" ] || { echo "$0: $KGB is not an executable" >&2; exit 2; }
[ -r "$QUEUE" ] || { echo "$0: cannot read $QUEUE" >&2; exit 2; }
mkdir -p "$RESULTS"
export KGB RESULTS
export DEADLINE=$(($(date +%s) + SECONDS_ALLOWED))
export TIME_BUDGET=${KGB_TIME_BUDGET:-0.5} VALIDATE_ARGS=${KGB_VALIDATE_ARGS:-}
# The processes share the host's cores for their references.
export KGB_REFERENCE_THREADS=${KGB_REFERENCE_THREADS:-$(( $(nproc) / PARALLEL > 0 ? $(nproc) / PARALLEL : 1 ))}

validate_line() {
  local platform=$1 task=$2
  local out="$RESULTS/${platform}__${task//\//__}.txt"
  [ -s "$out" ] && return 0
  local left=$((DEADLINE - $(date +%s)))
  [ "$left" -lt 40 ] && return 0
  local started=$(date +%s) rc extra
  read -ra extra <<<"$VALIDATE_ARGS"
  timeout -k 5 "$left" "$KGB" validate --platform "$platform" --time-budget "$TIME_BUDGET" "${extra[@]}" \
    --tasks "$task" >"$out.part" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    mv "$out.part" "${out%.txt}.cut"
    return 0
  fi
  echo "# rc=$rc wall=$(($(date +%s) - started))s time-budget=$TIME_BUDGET" >>"$out.part"
  mv "$out.part" "$out"
  rm -f "${out%.txt}.cut"
}
export -f validate_line

grep -v '^[[:space:]]*\(#\|$\)' "$QUEUE" | xargs -P "$PARALLEL" -L 1 bash -c 'validate_line "$0" "$1"'

failed=0 left=0
while read -r platform task _; do
  out="$RESULTS/${platform}__${task//\//__}.txt"
  if [ ! -s "$out" ]; then
    left=$((left + 1))
    continue
  fi
  row=$(grep -E "^${task}[[:space:]]" "$out" | head -1)
  [ -z "$row" ] && row="$task (no table row: see $out)"
  printf '%-14s %s\n' "$platform" "$row"
  grep -q '^# rc=0 ' "$out" || failed=$((failed + 1))
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$QUEUE")
echo "finished lines failing: $failed; lines left: $left"
[ "$failed" -gt 0 ] && exit 1
[ "$left" -gt 0 ] && exit 3
exit 0
