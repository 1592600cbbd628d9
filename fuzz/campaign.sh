#!/usr/bin/env bash
# A long fuzzing campaign over every target, seeded from the shared corpus.
#
#   fuzz/campaign.sh [SECONDS_PER_TARGET] [PARALLEL_JOBS] [TARGET...]
#
# Defaults: 1800 s per target, 2 jobs at a time, every target. The targets
# are built once and their binaries copied aside, so editing the project
# while a campaign runs does not change what is being fuzzed. Seeds (corpus
# files, the peers' golden text and our own text of every corpus file) go to
# fuzz/corpus/<target>/, which libFuzzer also grows; logs to fuzz/logs/.
# At the end the script prints each target's executions and outcome.
# FUZZ_TIMEOUT (default 10 s) is the slowest one input may be; raise it on a
# busy machine, where a niced fuzzer can be starved into false timeouts.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-1800}
jobs=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
corpus=${CODEC_CORPUS:-../../shared/corpus}
export RUSTC_BOOTSTRAP=1

# cargo-fuzz's default build: optimised, with debug assertions and
# overflow checks on (an overflow panics instead of wrapping silently), and
# AddressSanitizer.
cargo fuzz build
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
triple=$(rustc -vV | sed -n 's/^host: //p')
bin=campaign/bin
mkdir -p "$bin" logs
for t in "${targets[@]}"; do cp "target/$triple/release/$t" "$bin/$t"; done

# Seeds.
(cd .. && cargo build -q --release -p formats --bin codec)
codec=../target/release/codec
text=campaign/text
if [ ! -d "$text" ]; then
  mkdir -p "$text/aamp" "$text/ainb" "$text/bdat"
  for f in "$corpus"/ainb/*.ainb; do
    "$codec" to-text "$f" -o "$text/ainb/$(basename "$f").json" 2>/dev/null || true
  done
  for f in "$corpus"/bdat/*.bdat; do
    "$codec" to-text "$f" -o "$text/bdat/$(basename "$f" .bdat)" 2>/dev/null || true
  done
  for f in "$corpus"/aamp/*; do
    case "$f" in *.yml|*.tsv) continue ;; esac
    "$codec" to-text "$f" -o "$text/aamp/$(basename "$f").yml" 2>/dev/null || true
  done
fi
# MSBT's editors' text of every corpus message file (made once).
if [ ! -d "$text/msbt" ]; then
  mkdir -p "$text/msbt"
  for f in $(find "$corpus/msbt" -name '*.msbt'); do
    "$codec" to-text "$f" -o "$text/msbt/$(cksum <"$f" | cut -d' ' -f1).msbt.yml" 2>/dev/null || true
  done
fi
seed() { # target, then files
  local dir=corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(cksum <"$f" | cut -d' ' -f1)"; done
  return 0
}
for t in "${targets[@]}"; do
  case "$t" in
    aamp_yaml) seed "$t" $(find "$corpus/aamp" "$text/aamp" -name "*.yml") ;;
    # Small texts make the differential target fast; the corpus's texts'
    # first 1.5 KB cover the shapes.
    yaml_fast)
      mkdir -p corpus/yaml_fast
      for f in $(find "$corpus/aamp" "$corpus/byml" "$text/aamp" -name "*.yml"); do
        head -c 1500 "$f" >"corpus/yaml_fast/$(cksum <"$f" | cut -d' ' -f1)"
      done ;;
    aamp_*) seed "$t" $(ls "$corpus"/aamp/* | grep -v -E '\.(yml|tsv)$') ;;
    ainb_json) seed "$t" $(find "$corpus/ainb/golden" "$text/ainb" -name '*.json') ;;
    ainb_*) seed "$t" "$corpus"/ainb/*.ainb ;;
    bdat_json) seed "$t" $(find "$corpus/bdat/golden" "$text/bdat" -name '*.json' -o -name '*.bschema') ;;
    bdat_*) seed "$t" "$corpus"/bdat/*.bdat ;;
    byml_yaml) seed "$t" $(find "$corpus/byml" -name '*.yml') ;;
    byml_*) seed "$t" "$corpus"/byml/*.byml ../samples/byml/*.byml ;;
    sarc_*) seed "$t" "$corpus"/sarc/*.sarc ;;
    msbt_text) seed "$t" $(find "$text/msbt" -name '*.yml') ;;
    msbt_*) seed "$t" $(find "$corpus/msbt" -name '*.msbt') ;;
    # A few hand-made msyt texts (no corpus file is msyt's).
    msyt_text)
      mkdir -p "corpus/$t"
      printf 'group_count: 29\nentries:\n  A:\n    contents:\n      - text: hi\n' >"corpus/$t/one"
      printf 'group_count: 1\nentries:\n  A:\n    attributes: AQID\n    contents:\n      - control:\n          kind: raw\n          group: 0\n          type: 3\n          data: [0, 0]\n      - text: x\n' >"corpus/$t/tag" ;;
    # Schemas are made from the bytes: an empty corpus, grown by the fuzzer.
    # The corpus's table is inside Yaz0: a one-entry table stands for it.
    rstb_*)
      mkdir -p "corpus/$t"
      printf 'RSTB\001\000\000\000\000\000\000\000\007\000\000\000\011\000\000\000' >"corpus/$t/one_entry" ;;
  esac
done

run() {
  local t=$1
  echo "$(date +%T) start $t"
  "$bin/$t" "corpus/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"logs/$t.log" 2>&1 \
    && echo "$(date +%T) done $t" || echo "$(date +%T) STOPPED $t (see logs/$t.log)"
}
mkdir -p artifacts
for t in "${targets[@]}"; do mkdir -p "artifacts/$t"; done
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

printf '\n%-18s %12s %8s  %s\n' target executions seconds outcome
for t in "${targets[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "logs/$t.log" | tail -1)
  outcome=clean
  grep -q -E '^==[0-9]+== ERROR|panicked|deadly signal|out-of-memory|timeout' "logs/$t.log" && outcome="FOUND (logs/$t.log)"
  printf '%-18s %12s %8s  %s\n' "$t" "${execs:-?}" "${secs:-?}" "$outcome"
done
