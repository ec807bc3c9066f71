#!/usr/bin/env bash
# Learned heap invariants, measured on `rivet explore`: per method, `rivet generate
# --keep-artifacts` on its class learns invariants from the tests' objects, then the method is
# explored at a heap scope with the learned file and without. Prints one table: paths without
# (and whether the cap stopped it), paths with, their ratio, branches covered without and
# with, branches lost, the branches of the lines marked `// HARD` in the class's source and of
# the lines before them (the condition; ids as `rivet branches` numbers them, in the class's
# methods the method calls too) and whether the run with invariants covers them, and how many
# paths with invariants had their whole path condition solved and confirmed by concrete replay.
#
#   tools/bench/invariants.sh [--seed N] [--budget S] [--scope N] [--max-paths N]
#                             [--explore-budget S] [--out DIR] [METHOD=NODE_CLASS ...]
#
# Defaults: seed 0, generate budget 60 s, heap scope 5 for the node class, explorations capped at
# 100000 paths and 600 s; the methods NodeCachingList.removeAt and AvlTree.insert. RIVET_BIN
# overrides the rivet binary (default: cargo build --release, target/release/rivet).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

seed=0
budget=60
scope=5
max_paths=100000
explore_budget=600
out=target/bench-invariants
methods=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --scope) scope=$2; shift 2 ;;
    --max-paths) max_paths=$2; shift 2 ;;
    --explore-budget) explore_budget=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) methods+=("$1"); shift ;;
  esac
done
[ ${#methods[@]} -gt 0 ] || methods=(
  'structures.NodeCachingList.removeAt(I)I=structures.NodeCachingList$Node'
  'structures.AvlTree.insert(I)Z=structures.AvlTree$Node'
)
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -z "${RIVET_BIN:-}" ]; then
  cargo build --release -q -p rivet-cli
  RIVET_BIN=$root/target/release/rivet
fi

subjects=$out/subjects-classes
rm -rf "$subjects"
javac --release 11 -g -nowarn -d "$subjects" $(find subjects/src -name '*.java')

# The branch ids a paths.jsonl covers, one per line, sorted.
covered() { grep -o '"branches":\[[0-9,]*\]' "$1" | grep -o '[0-9][0-9]*' | sort -n -u; }
# A top-level number or boolean of a summary.json.
field() { grep -m1 "^  \"$2\":" "$1" | sed -E 's/^[^:]*: *//; s/[ ,]//g'; }

rows=()
for entry in "${methods[@]}"; do
  method=${entry%%=*}
  node=${entry#*=}
  class=${method%(*}; class=${class%.*}
  dir=$out/$class-seed$seed
  rm -rf "$dir"; mkdir -p "$dir"
  "$RIVET_BIN" generate --classpath "$subjects" --class "$class" --out "$dir/tests" --budget "$budget" \
    --seed "$seed" --keep-artifacts "$dir/artifacts" >"$dir/generate.out" 2>"$dir/generate.err"
  inv=$dir/artifacts/symbolic/invariants.txt
  learned=$(grep -c '^[a-z]' "$inv" || true)
  for variant in without with; do
    flags=()
    [ "$variant" = with ] && flags=(--invariants "$inv")
    "$RIVET_BIN" explore --classpath "$subjects" --method "$method" --heap-scope "$node=$scope" \
      --max-paths "$max_paths" --budget "$explore_budget" ${flags[@]+"${flags[@]}"} \
      $([ "$variant" = without ] && echo --no-replay) --out "$dir/explore-$variant" 2>"$dir/explore-$variant.err"
    covered "$dir/explore-$variant/paths.jsonl" >"$dir/branches-$variant.txt"
  done
  p0=$(field "$dir/explore-without/summary.json" paths)
  t0=$(field "$dir/explore-without/summary.json" truncated)
  p1=$(field "$dir/explore-with/summary.json" paths)
  solved=$(field "$dir/explore-with/summary.json" solved)
  confirmed=$(field "$dir/explore-with/summary.json" confirmed)
  b0=$(wc -l <"$dir/branches-without.txt")
  b1=$(wc -l <"$dir/branches-with.txt")
  lost=$(comm -23 "$dir/branches-without.txt" "$dir/branches-with.txt" | paste -sd, -)
  # HARD: the branches of the marked line and of the line before it (the condition).
  src=subjects/src/${class//.//}.java
  hard=-
  lines=$( (grep -n '// HARD' "$src" || true) | cut -d: -f1)
  if [ -n "$lines" ]; then
    ids=$(for l in $lines; do
      "$RIVET_BIN" branches --classpath "$subjects" --class "$class" \
        | awk -F'\t' -v a=$((l - 1)) -v b="$l" 'NR > 1 && ($6 == a || $6 == b) { print $4 }'
    done | sort -n -u)
    hard=$(for id in $ids; do
      if grep -qx "$id" "$dir/branches-with.txt"; then echo "$id:yes"; else echo "$id:no"; fi
    done | paste -sd, -)
    [ -n "$hard" ] || hard=-
  fi
  ratio=$(awk -v a="$p1" -v b="$p0" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "-" }')
  rows+=("$(printf '%-42s %8s %10s %7s %8s %6s/%-6s %-8s %-14s %s/%s' "$method" "$learned" \
    "$p0$([ "$t0" = true ] && echo '+')" "$p1" "$ratio" "$b0" "$b1" "${lost:-none}" "$hard" "$solved" "$confirmed")")
  echo "${rows[-1]}" >&2
done

echo
echo "rivet invariants bench: seed $seed, generate budget $budget s, heap scope $scope, cap $max_paths paths / $explore_budget s ($(date -u +%Y-%m-%dT%H:%MZ)); + = stopped by the cap"
printf '%-42s %8s %10s %7s %8s %13s %-8s %-14s %s\n' method learned "paths w/o" "with" ratio "branches" lost "HARD (with)" "solved/confirmed"
for r in "${rows[@]}"; do echo "$r"; done
