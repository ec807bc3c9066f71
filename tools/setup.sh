#!/usr/bin/env bash
# Installs the Debian packages Rivet's verification and tests use, when missing: JUnit 5 and 4
# (verified tests), JaCoCo (reference branch counts), real-world jars (test subjects), Z3,
# Chromium (the HTML report is rendered headless in a test), and Maven with Debian's packaged
# plugins (a Maven project's generated tests run under `mvn -o test`). Needs root (or sudo).
set -euo pipefail
packages=(junit5 junit4 libjacoco-java libhamcrest-java libasm-java
          libcommons-lang3-java libcommons-collections4-java libguava-java
          libjoda-time-java libcommons-codec-java libcommons-text-java libcommons-compress-java
          libcommons-io-java libclosure-compiler-java libz3-dev chromium
          maven maven-debian-helper libsurefire-java libmaven-compiler-plugin-java
          libmaven-resources-plugin-java libmaven-dependency-plugin-java)
# A Rust toolchain with rustfmt and clippy: the machine's own (rustup) when there is one, else
# Debian's (bookworm-security carries Rust 1.96 as the -web packages).
if ! command -v cargo >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1 \
   || ! cargo fmt --version >/dev/null 2>&1; then
  packages+=(rustc-web cargo-web rustfmt-web rust-web-clippy)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
