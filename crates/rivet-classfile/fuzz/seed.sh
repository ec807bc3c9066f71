#!/usr/bin/env bash
# Builds the seed corpus corpus/parse: test fixtures, the shared subjects, and some JDK classes.
set -euo pipefail
cd "$(dirname "$0")"
out=corpus/parse
mkdir -p "$out"
cp ../tests/fixtures/*.class "$out/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
subjects=../../../../shared/subjects/src
if [ -d "$subjects" ]; then
  javac -nowarn --release 11 -g -d "$tmp/subjects" $(find "$subjects" -name '*.java')
  find "$tmp/subjects" -name '*.class' | while read -r f; do cp "$f" "$out/subject_$(basename "$f")"; done
fi
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
if [ -f "$jdk/jmods/java.base.jmod" ]; then
  jmod extract --dir "$tmp/base" "$jdk/jmods/java.base.jmod"
  # A spread of JDK classes: every 40th class of java.base.
  find "$tmp/base/classes" -name '*.class' | sort | awk 'NR % 40 == 0' | while read -r f; do
    cp "$f" "$out/jdk_$(echo "${f#"$tmp"/base/classes/}" | tr '/$' '__')"
  done
fi
echo "$(ls "$out" | wc -l) seeds in $out"
