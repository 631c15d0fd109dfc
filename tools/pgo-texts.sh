# Sourced by tools/pgo-train.sh (wasm) and tools/pgo-native.sh (native): what the profiles of the
# HLO reader are trained on, and how the training runs.
#   pgo_texts DIR   sets the array `texts`: the optimized module of every committed fixture, and
#                   the bench's other kinds of module as captured (fixtures/bench-kinds:
#                   unoptimized, metadata-heavy, short-line, SPMD; gzip'd, so unpacked into DIR
#                   first). Real dumps only: the branch weights are those of real input.
#   norand          an array: the command prefix that runs without address randomisation where the
#                   system allows it (tuple types are hashed by their elements' addresses, so their
#                   probe counts, and the profile, would differ from run to run), else empty.
pgo_texts() {
  local dir=$1 gz out
  mapfile -t texts < <(node tests/fixtures.mjs fixtures after_optimizations.txt)
  mkdir -p "$dir"
  while read -r gz; do
    [ -n "$gz" ] || continue
    out=$dir/$(basename "$(dirname "$gz")")-$(basename "$gz" .gz)
    gzip -dc "$gz" >"$out"
    texts+=("$out")
  done < <(node tests/fixtures.mjs files bench-kinds/cpu-jax-0.12.0.1 .txt.gz)
}
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
