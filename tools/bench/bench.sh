#!/usr/bin/env bash
# Rivet's bench harness: runs `rivet generate` on every subject (subjects/src) and on real
# classes (commons-lang3's WordUtils and Fraction), then measures the branch coverage of the
# emitted tests independently: javac, the JUnit console launcher run twice (both runs must
# pass), the second under the JaCoCo agent, and JaCoCo's Analyzer over the original classes.
# Prints one table: subject, then per strategy: covered, HARD branches covered, tests, pass
# twice, mutation (`rivet mutate` on the written tests, over every mutant of the class: the
# named class's own score and killed/mutants, then the score with its nested classes), elapsed;
# then the branches of the class with its nested classes, and "own class": the
# covered/total branches of the named class alone (of the last strategy); last, per column
# group, each technique's branches covered first and the seconds of its turns (the report's
# techniques rows).
#
#   tools/bench/bench.sh [--budget S] [--seed N | --seeds LIST] [--strategies LIST]
#                        [--pc-policies LIST] [--pc-until-budget] [--pc-window S]
#                        [--reruns K] [--out DIR] [--set subjects|real|all]
#                        [--generate-flag FLAG ...] [--no-mutation] [--junit 4|5] [CLASS ...]
#
# --set chooses the classes when none are named: `subjects` (default: every subject plus
# commons-lang3's WordUtils and Fraction), `real` (the twelve library classes of the real-classes
# issue, from Debian's commons-collections4, guava, commons-io and commons-lang3 jars), `trust`
# (the twelve classes of the trust issue, also from commons-text and commons-compress),
# `oracles` (the nine classes of the oracles issue: guava, commons-lang3, commons-codec,
# commons-collections4 and three subjects), `closure` (the five Closure Compiler passes of the
# deep-inputs issue, directly, then through the drivers of subjects/closure; needs Debian's
# libclosure-compiler-java), `all`. --no-mutation leaves the mutation column out.
#
# A class may be named as CLASS#METHOD>MEASURED: `rivet generate --class CLASS --method METHOD
# --cover 'MEASURED*'`, with JaCoCo measuring MEASURED and its nested classes (a driver method
# and the class it reaches); the "covered" column then counts MEASURED's branches.
#
# The suites run from a fresh writable directory of their own (as a developer's project
# directory); the "pass 2x" column adds "left N" when the runs left N files there, and the
# "tests" column "-N" when verification dropped N tests (rivet-report.json's dropped_tests).
#
# --reruns K runs each emitted suite K more times in a random method order (the emitted order
# annotation removed, one seed per run) and prints how many of those runs passed.
# --strategies is a comma-separated list of `rivet generate --strategy` values (default: all;
# e.g. search,symbolic,all for one column group per strategy).
# --pc-policies is a comma-separated list of `--pc-policy` values (fifo, cover, tardis,
# cover-tardis): one column group per strategy and policy. --seeds runs every class at each
# seed of a comma-separated list (one row per seed). --pc-until-budget is passed on.
# When the symbolic strategy ran, a second table gives per column group the path conditions
# tried within the first --pc-window seconds (default 30) of the strategies and how many of
# them a test satisfied ("sat/tried" per seed, then the means), from rivet-report.json's
# pc_selection.attempts.
# --generate-flag FLAG (repeatable) passes FLAG to every `rivet generate` (e.g.
# --no-learned-invariants). --junit 4 has Rivet write JUnit 4 suites, compiled against Debian's
# junit4 and run by the same console launcher's vintage engine (the random-order reruns then
# run JUnit 4's own order).
#
# Needs a JDK (javac, jar, java) and Debian's junit5 and libjacoco-java. RIVET_BIN overrides
# the rivet binary (default: cargo build --release, target/release/rivet).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

budget=60
seed=0
seeds=
strategies=all
policies=
until_budget=
window=30
reruns=0
set=subjects
out=target/bench
classes=()
generate_flags=()
mutation=1
junit=5
while [ $# -gt 0 ]; do
  case "$1" in
    --no-mutation) mutation=; shift ;;
    --junit) junit=$2; shift 2 ;;
    --generate-flag) generate_flags+=("$2"); shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --pc-policies) policies=$2; shift 2 ;;
    --pc-until-budget) until_budget=--pc-until-budget; shift ;;
    --pc-window) window=$2; shift 2 ;;
    --reruns) reruns=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --set) set=$2; shift 2 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) classes+=("$1"); shift ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
java_dir=/usr/share/java
lang3=$java_dir/commons-lang3.jar

if [ -z "${RIVET_BIN:-}" ]; then
  cargo build --release -q -p rivet-cli
  RIVET_BIN=$root/target/release/rivet
fi

# The subjects, compiled as their README says (release 11, so that JaCoCo 0.8.6 reads them).
subjects=$out/subjects-classes
rm -rf "$subjects"
javac --release 11 -g -nowarn -d "$subjects" $(find subjects/src -name '*.java')

# JaCoCo: an agent jar with a Premain-Class (Debian's has none) and the reader tool.
tool=$out/tool
mkdir -p "$tool"
cat > "$tool/manifest.txt" <<MF
Premain-Class: org.jacoco.agent.rt.internal.PreMain
Class-Path: $java_dir/org.jacoco.agent.rt.jar $java_dir/org.jacoco.core.jar $java_dir/asm.jar $java_dir/asm-commons.jar $java_dir/asm-tree.jar
MF
(cd "$tool" && rm -f premain.jar && jar cfm premain.jar manifest.txt)
jacoco_cp=$java_dir/org.jacoco.core.jar:$java_dir/asm.jar:$java_dir/asm-commons.jar:$java_dir/asm-tree.jar
javac -nowarn -d "$tool" -cp "$jacoco_cp" tools/bench/BenchCoverage.java

junit_api=$java_dir/junit-jupiter-api.jar:$java_dir/opentest4j.jar:$java_dir/apiguardian-api.jar:$java_dir/junit-platform-commons.jar
launcher=$java_dir/junit-platform-console-standalone.jar
if [ "$junit" = 4 ]; then
  junit_api=$java_dir/junit4.jar:$java_dir/hamcrest-core.jar
  generate_flags+=(--junit 4)
fi

real_classes=(
  org.apache.commons.collections4.trie.AbstractPatriciaTrie
  org.apache.commons.collections4.map.AbstractHashedMap
  org.apache.commons.collections4.map.LRUMap
  com.google.common.collect.CompactHashMap
  com.google.common.io.LineReader
  com.google.common.collect.MinMaxPriorityQueue
  org.apache.commons.io.LineIterator
  org.apache.commons.io.input.BoundedReader
  org.apache.commons.lang3.EnumUtils
  org.apache.commons.lang3.ClassUtils
  org.apache.commons.lang3.time.DurationFormatUtils
  org.apache.commons.lang3.Validate
)
trust_classes=(
  org.apache.commons.collections4.bidimap.TreeBidiMap
  org.apache.commons.collections4.bidimap.DualTreeBidiMap
  org.apache.commons.collections4.trie.PatriciaTrie
  org.apache.commons.collections4.map.MultiKeyMap
  org.apache.commons.collections4.map.LinkedMap
  org.apache.commons.collections4.list.CursorableLinkedList
  org.apache.commons.collections4.multiset.HashMultiSet
  org.apache.commons.lang3.Range
  org.apache.commons.lang3.tuple.MutablePair
  org.apache.commons.lang3.ArrayUtils
  org.apache.commons.text.StringSubstitutor
  org.apache.commons.compress.archivers.zip.ZipArchiveEntry
)
oracle_classes=(
  com.google.common.primitives.Ints
  com.google.common.math.Stats
  org.apache.commons.lang3.BooleanUtils
  org.apache.commons.lang3.CharUtils
  org.apache.commons.codec.binary.Hex
  org.apache.commons.collections4.list.TreeList
  structures.AvlTree
  structures.NodeCachingList
  strings.DateParser
)
jscomp=com.google.javascript.jscomp
closure_classes=(
  $jscomp.DeadAssignmentsElimination
  $jscomp.FlowSensitiveInlineVariables
  $jscomp.Denormalize
  $jscomp.MinimizeExitPoints
  $jscomp.PeepholeFoldConstants
  "$jscomp.PassDrivers#deadAssignmentsElimination>$jscomp.DeadAssignmentsElimination"
  "$jscomp.PassDrivers#flowSensitiveInlineVariables>$jscomp.FlowSensitiveInlineVariables"
  "$jscomp.PassDrivers#denormalize>$jscomp.Denormalize"
  "$jscomp.PassDrivers#minimizeExitPoints>$jscomp.MinimizeExitPoints"
)
if [ ${#classes[@]} -eq 0 ]; then
  case "$set" in
    subjects|all)
      while IFS= read -r f; do
        c=${f#subjects/src/}; c=${c%.java}; classes+=("${c//\//.}")
      done < <(find subjects/src -name '*.java' | sort)
      classes+=(org.apache.commons.lang3.text.WordUtils org.apache.commons.lang3.math.Fraction) ;;
  esac
  case "$set" in
    real|all) classes+=("${real_classes[@]}") ;;
    trust) classes+=("${trust_classes[@]}") ;;
    oracles) classes+=("${oracle_classes[@]}") ;;
    closure) classes+=("${closure_classes[@]}") ;;
    subjects) ;;
    *) echo "bench: --set must be subjects, real, trust, oracles, closure or all" >&2; exit 2 ;;
  esac
fi
# Closure Compiler's passes need its jar and those it needs; the drivers are compiled against it.
closure_jar=$java_dir/closure-compiler.jar
closure_cp=$closure_jar:$java_dir/guava.jar:$java_dir/args4j.jar:$java_dir/json.jar
if printf '%s\n' "${classes[@]}" | grep -q '^com\.google\.javascript\.'; then
  [ -f "$closure_jar" ] || { echo "bench: the Closure Compiler classes need Debian's libclosure-compiler-java ($closure_jar)" >&2; exit 2; }
  rm -rf "$out/closure-classes"
  javac --release 11 -g -nowarn -d "$out/closure-classes" -cp "$closure_cp" $(find subjects/closure/src -name '*.java')
fi

IFS=, read -r -a strategy_list <<<"$strategies"
IFS=, read -r -a seed_list <<<"${seeds:-$seed}"
IFS=, read -r -a policy_list <<<"${policies:-default}"
# Column groups: strategy, or strategy/policy when policies are named.
groups=()
for strategy in "${strategy_list[@]}"; do
  for policy in "${policy_list[@]}"; do
    if [ -n "$policies" ]; then groups+=("$strategy/$policy"); else groups+=("$strategy"); fi
  done
done
rows=()
declare -A pcs
declare -A tech
pc_rows=()
for spec in "${classes[@]}"; do
for seed in "${seed_list[@]}"; do
  # CLASS#METHOD>MEASURED: a driver method, and the class whose branches count.
  class=${spec%%[#>]*}
  key=${spec//[#>]/_}
  measured=$class
  target_flags=()
  case "$spec" in *'>'*) measured=${spec#*>}; target_flags+=(--cover "$measured*") ;; esac
  method=
  case "$spec" in *'#'*) method=${spec#*#}; method=${method%%>*}; target_flags+=(--method "$method") ;; esac
  case "$class" in
    com.google.javascript.*) cp=$out/closure-classes:$closure_cp; location=$closure_jar ;;
    org.apache.commons.lang3.*) cp=$lang3; location=$lang3 ;;
    org.apache.commons.collections4.*) cp=$java_dir/commons-collections4.jar; location=$cp ;;
    org.apache.commons.io.*) cp=$java_dir/commons-io.jar; location=$cp ;;
    org.apache.commons.text.*) location=$java_dir/commons-text.jar; cp=$location:$lang3 ;;
    org.apache.commons.compress.*) cp=$java_dir/commons-compress.jar; location=$cp ;;
    org.apache.commons.codec.*) cp=$java_dir/commons-codec.jar; location=$cp ;;
    com.google.common.*) cp=$java_dir/guava.jar; location=$cp ;;
    *) cp=$subjects; location=$subjects ;;
  esac
  # The measured class's classes: the driver's own, but Closure's passes are in its jar.
  case "$measured" in com.google.javascript.*) location=$closure_jar ;; esac
  src=subjects/src/${class//.//}.java
  hard=-
  if [ -f "$src" ]; then
    hard=$( (grep -n '// HARD' "$src" || true) | cut -d: -f1 | paste -sd, -)
    [ -n "$hard" ] || hard=-
  fi
  label=$class
  [ "$spec" = "$class" ] || label="${class##*.}#$method>${measured##*.}"
  [ ${#seed_list[@]} -gt 1 ] && label="$label s$seed"
  row=$(printf '%-42s' "$label")
  total=-
  own=-
  for group in "${groups[@]}"; do
    strategy=${group%%/*}
    policy_flag=()
    [ "$group" != "$strategy" ] && policy_flag=(--pc-policy "${group#*/}")
    dir=$out/runs/$key/${group//\//-}/seed$seed
    rm -rf "$dir"; mkdir -p "$dir"
    start=$(date +%s%3N)
    status=ok
    "$RIVET_BIN" generate --classpath "$cp" --class "$class" --out "$dir/tests" --budget "$budget" --seed "$seed" \
      --strategy "$strategy" "${policy_flag[@]}" ${target_flags[@]+"${target_flags[@]}"} $until_budget ${generate_flags[@]+"${generate_flags[@]}"} >"$dir/generate.out" 2>"$dir/generate.err" || status="exit $?"
    ms=$(( $(date +%s%3N) - start )); elapsed=$((ms / 1000)).$(( (ms % 1000) / 100 ))
    tests=0; covered=-; hardcov=-; twice=-; mut=-
    if [ "$status" = ok ]; then
      tests=$(grep -m1 '"tests":' "$dir/tests/rivet-report.json" | tr -dc '0-9')
      dropped=$(grep -m1 '"dropped_tests":' "$dir/tests/rivet-report.json" | tr -dc '0-9')
      [ "${dropped:-0}" = 0 ] || tests="$tests-$dropped"
      mkdir -p "$dir/test-classes" "$dir/cwd"
      if javac -nowarn -d "$dir/test-classes" -cp "$cp:$junit_api" $(find "$dir/tests" -name '*.java') 2>"$dir/javac.err"; then
        # From a fresh writable directory, as a developer's project directory, with a home
        # directory of its own: the suites are code under test too.
        mkdir -p "$dir/home"
        run() {
          (cd "$dir/cwd" && HOME="$dir/home" java -Duser.home="$dir/home" "$@" -jar "$launcher" --class-path "$dir/test-classes:$cp:$junit_api" --scan-class-path "$dir/test-classes" \
            --disable-banner --details=none --disable-ansi-colors >>"$dir/junit.out" 2>&1)
        }
        pass=0
        if run; then pass=$((pass + 1)); fi
        if run "-javaagent:$tool/premain.jar=destfile=$dir/jacoco.exec,includes=$measured*"; then pass=$((pass + 1)); fi
        twice=$([ $pass -eq 2 ] && echo yes || echo "no($pass/2)")
        if [ "$reruns" -gt 0 ]; then
          # The same tests without their fixed order, in random orders.
          mkdir -p "$dir/random-src" "$dir/random-classes"
          for f in $(cd "$dir/tests" && find . -name '*.java'); do
            mkdir -p "$dir/random-src/$(dirname "$f")"
            grep -v '@org.junit.jupiter.api.TestMethodOrder\|@org.junit.FixMethodOrder' "$dir/tests/$f" >"$dir/random-src/$f"
          done
          green=0
          if javac -nowarn -d "$dir/random-classes" -cp "$cp:$junit_api" $(find "$dir/random-src" -name '*.java') 2>>"$dir/javac.err"; then
            for i in $(seq 1 "$reruns"); do
              if (cd "$dir/cwd" && HOME="$dir/home" java -Duser.home="$dir/home" -jar "$launcher" --class-path "$dir/random-classes:$cp:$junit_api" --scan-class-path "$dir/random-classes" \
                --config 'junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random' \
                --config "junit.jupiter.execution.order.random.seed=$i" \
                --disable-banner --details=none --disable-ansi-colors >>"$dir/junit-random.out" 2>&1); then
                green=$((green + 1))
              fi
            done
          fi
          twice="$twice,$green/$reruns"
        fi
        left=$(find "$dir/cwd" -mindepth 1 | wc -l)
        [ "$left" = 0 ] || twice="$twice,left $left"
        read -r b c h o < <(java -cp "$tool:$jacoco_cp" BenchCoverage "$dir/jacoco.exec" "$location" "$measured" "$hard" \
          | sed -E 's/branches=([0-9]+) covered=([0-9]+) hard=([0-9/]+) own=([0-9/-]+)/\1 \2 \3 \4/')
        total=$b; covered=$c; hardcov=$h; own=$o
        # What Rivet's report claims, shown beside JaCoCo's count when they differ.
        # (the measured class and its nested ones, as JaCoCo counts them).
        claimed=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1])); m = sys.argv[2]
print(sum(c["covered"] for c in r.get("classes", []) if c["class"] == m or c["class"].startswith(m + "$")))' "$dir/tests/rivet-report.json" "$measured")
        [ "$claimed" = "$c" ] || covered="$c(r$claimed)"
        [ "$hard" = - ] && hardcov=-
        # Mutation: every mutant of the class against the written tests.
        if [ -n "$mutation" ]; then
          if "$RIVET_BIN" mutate --classpath "$cp" --class "$class" --tests "$dir/tests" \
              --report "$dir/mutation.json" >"$dir/mutate.out" 2>"$dir/mutate.err"; then
            # The named class's own mutants, then with its nested classes' (as branches count).
            mut=$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
det = ("KILLED", "TIMED_OUT", "RUN_ERROR")
own = [r for r in m["rows"] if r.get("class", sys.argv[2]) == sys.argv[2] and r["status"] not in ("NON_VIABLE", "NOT_RUN")]
k = sum(r["status"] in det for r in own)
print("%.2f %d/%d,all %.2f" % (k / max(len(own), 1), k, len(own), m["score"]))' "$dir/mutation.json" "$class")
          else
            mut="exit $?"
          fi
        fi
      else
        twice="javac failed"
      fi
    else
      err=$(grep -m1 'rivet: error' "$dir/generate.err" || true)
      twice="$status${err:+: ${err#rivet: error: }}"
    fi
    row+=$(printf ' | %8s %7s %6s %-10s %22s %8s' "$covered" "$hardcov" "$tests" "$twice" "$mut" "$elapsed")
    # Each technique's branches covered first and the seconds of its turns (the report's
    # techniques rows), as "name first/s".
    if [ "$status" = ok ]; then
      tech[$key,$group,$seed]=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s %d/%.0fs" % (t["strategy"], t["first_covered_branches"], t["seconds"]) for t in r.get("techniques", [])) or "-")' "$dir/tests/rivet-report.json" 2>/dev/null || echo -)
    fi
    # Path conditions tried within the window, and those satisfied (pretty JSON: tried_s
    # comes before outcome in each attempt).
    if [ "$status" = ok ] && grep -q '"pc_selection"' "$dir/tests/rivet-report.json"; then
      pcs[$key,$group,$seed]=$(awk -v w="$window" '
        /"tried_s":/ { t = $2 + 0 }
        /"outcome":/ { if (t < w) { n++; if ($2 ~ /reached/) s++ } }
        END { printf "%d/%d", s, n }' "$dir/tests/rivet-report.json")
    fi
  done
  techs=
  for group in "${groups[@]}"; do techs+=" ${tech[$key,$group,$seed]:--}"; done
  rows+=("$(printf '%s %8s %9s %s' "$row" "$total" "$own" "$techs")")
  echo "${rows[-1]}" >&2
done
  # The class's path-condition row: satisfied/tried per seed, then the means.
  pc_row=$(printf '%-42s' "$key")
  any=
  for group in "${groups[@]}"; do
    cell=
    for seed in "${seed_list[@]}"; do
      v=${pcs[$key,$group,$seed]:--}
      [ "$v" != - ] && any=1
      cell+="$v "
    done
    mean=$(echo "$cell" | tr ' ' '\n' | awk -F/ 'NF == 2 { s += $1; n += $2; k++ } END { if (k) printf "%.1f/%.1f", s / k, n / k; else printf "-" }')
    pc_row+=$(printf ' | %s= %s' "$cell" "$mean")
  done
  [ -n "$any" ] && pc_rows+=("$pc_row")
done

echo
echo "rivet bench: budget ${budget} s, seed ${seeds:-$seed}, strategies ${strategies}${policies:+, pc policies $policies}${until_budget:+ (until budget)}${generate_flags[*]+, flags ${generate_flags[*]}}, $(nproc) cores ($(date -u +%Y-%m-%dT%H:%MZ))"
header=$(printf '%-42s' subject)
for group in "${groups[@]}"; do
  header+=$(printf ' | %8s %7s %6s %-10s %22s %8s' "covered" "HARD" "tests" "pass 2x" "mutation own,all" "$group")
done
printf '%s %8s %9s %s\n' "$header" branches "own class" "technique first-branches/seconds"
for r in "${rows[@]}"; do echo "$r"; done
if [ ${#pc_rows[@]} -gt 0 ]; then
  echo
  echo "path conditions satisfied/tried in the first ${window} s of the strategies (per seed ${seeds:-$seed} = mean)"
  header=$(printf '%-42s' subject)
  for group in "${groups[@]}"; do header+=" | $group"; done
  echo "$header"
  for r in "${pc_rows[@]}"; do echo "$r"; done
fi
