#!/usr/bin/env bash
# Fidelity of the symbolic executor on real code: `rivet explore` on every public, non-abstract
# method and constructor declared by each class, with a time budget each, then one table:
# method, paths, paths/s, precise share, ends (return / exception / bound / unsupported) and
# the call most often not followed (the model most worth adding).
#
#   tools/bench/explore-fidelity.sh [--budget S] [--classpath CP] [--out DIR] [CLASS ...]
#
# Default classes: commons-collections4 TreeList, LRUMap, PatriciaTrie (and its abstract
# superclass, where its methods live) and guava MinMaxPriorityQueue, from Debian's jars.
# RIVET_BIN overrides the rivet binary (default: cargo build --release, target/release/rivet).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

budget=20
java_dir=/usr/share/java
classpath=$java_dir/commons-collections4.jar:$java_dir/guava.jar
out=target/explore-fidelity
classes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift 2 ;;
    --classpath) classpath=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) classes+=("$1"); shift ;;
  esac
done
if [ ${#classes[@]} -eq 0 ]; then
  classes=(org.apache.commons.collections4.list.TreeList
           org.apache.commons.collections4.map.LRUMap
           org.apache.commons.collections4.trie.PatriciaTrie
           org.apache.commons.collections4.trie.AbstractPatriciaTrie
           com.google.common.collect.MinMaxPriorityQueue)
fi
if [ -z "${RIVET_BIN:-}" ]; then
  cargo build --release -q -p rivet-cli
  RIVET_BIN=$root/target/release/rivet
fi
mkdir -p "$out"

# Public, non-abstract, non-native methods and constructors declared by a class, as
# `name(DESCRIPTOR)` (constructors as <init>), from javap's -s output.
methods_of() {
  local class=$1 simple=${1##*.}
  javap -cp "$classpath" -public -s "$class" | awk -v simple="${simple//$/\\$}" '
    /^  public / && !/ abstract / && !/ native / && /\(/ {
      sig = $0; sub(/\(.*/, "", sig); n = split(sig, w, " "); name = w[n]
      sub(/.*\./, "", name); if (name == simple) name = "<init>"
      getline; if ($1 == "descriptor:") print name $2
    }' | sort -u
}

printf '%-58s %7s %8s %8s %7s %6s %6s %6s  %s\n' method paths paths/s precise return exc bound unsup "most calls not followed"
total_paths=0 total_precise=0
for class in "${classes[@]}"; do
  while IFS= read -r m; do
    name=${m%%(*}
    dir=$out/${class##*.}.${name//[<>]/_}.$(printf '%s' "$m" | cksum | cut -d' ' -f1)
    if ! "$RIVET_BIN" explore --classpath "$classpath" --method "$class.$m" --budget "$budget" \
        --out "$dir" >"$dir.log" 2>&1; then
      printf '%-58s failed: %s\n' "${class##*.}.$m" "$(tail -n 1 "$dir.log")"
      continue
    fi
    s=$dir/summary.json
    read -r paths precise pps ret exc bound unsup top < <(jq -r '[.paths, .precise,
      (.paths_per_s | floor), .returns, .exceptions, .bounded, .unsupported,
      ((.not_followed_members[0] // {member: "-", calls: 0}) | "\(.member)×\(.calls)")] | @tsv' "$s")
    share=-
    [ "$paths" -gt 0 ] && share=$(( 100 * precise / paths ))%
    total_paths=$((total_paths + paths)); total_precise=$((total_precise + precise))
    label="${class##*.}.${m}"
    printf '%-58s %7s %8s %8s %7s %6s %6s %6s  %s\n' "${label:0:58}" "$paths" "$pps" "$share" "$ret" "$exc" "$bound" "$unsup" "$top"
  done < <(methods_of "$class")
done
share=-
[ "$total_paths" -gt 0 ] && share=$(( 100 * total_precise / total_paths ))%
printf 'total: %s paths, %s precise (%s)\n' "$total_paths" "$total_precise" "$share"
