#!/usr/bin/env bash
# validate-shards.sh KGB PLATFORM SHARDS [GLOB[,GLOB...]]: `kgb validate` of the
# tasks matching the globs (default: all) in SHARDS concurrent processes, the
# tables printed in shard order. Compiles and reference builds of one shard
# overlap those of the others; on a GPU host the timed loops of two shards can
# overlap too, so SHARDS=1 gives the figures of record. KGB_VALIDATE_ARGS adds
# options to every kgb validate (e.g. "--no-time"), KGB_TIME_BUDGET sets the
# per-case timing budget (default 0.5 s), KGB_REFERENCE_THREADS the reference
# threads of each shard (default: the cores divided among the shards). Stopped (TERM, a time
# limit), it still prints what each shard wrote so far. Exit status: 1 when any
# shard failed.
set -uo pipefail
KGB=$1 PLATFORM=$2 SHARDS=$3 GLOBS=${4:-*}
IFS=, read -ra patterns <<<"$GLOBS"
ids=()
while read -r id _; do
  [[ "$id" == */* ]] || continue
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    if [[ "$id" == $p ]]; then ids+=("$id"); break; fi
  done
done < <("$KGB" tasks 2>/dev/null)
tmp=$(mktemp -d)
pids=()
print_shards() {
  for ((s = 0; s < SHARDS; s++)); do [ -f "$tmp/$s" ] && cat "$tmp/$s"; done
  rm -rf "$tmp"
}
trap 'kill "${pids[@]}" 2>/dev/null; print_shards; exit 124' TERM INT
read -ra extra <<<"${KGB_VALIDATE_ARGS:-}"
# The shards share the host's cores for their references instead of each taking all of them.
export KGB_REFERENCE_THREADS=${KGB_REFERENCE_THREADS:-$(( $(nproc) / SHARDS > 0 ? $(nproc) / SHARDS : 1 ))}
for ((s = 0; s < SHARDS; s++)); do
  mine=()
  for ((i = s; i < ${#ids[@]}; i += SHARDS)); do mine+=("${ids[i]}"); done
  [ ${#mine[@]} -eq 0 ] && continue
  (IFS=,; exec "$KGB" validate --platform "$PLATFORM" --time-budget "${KGB_TIME_BUDGET:-0.5}" "${extra[@]}" --tasks "${mine[*]}") >"$tmp/$s" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
print_shards
exit $rc
