#!/usr/bin/env bash
# Builds losslab with profile-guided optimisation (PGO) into
# target/pgo/release/losslab, for long jobs (`reproduce --full`, big
# sweeps): the same results, byte for byte, in about 0.75-0.8 of the
# time (docs/BENCHMARKS.md, "The front end"). It costs a second
# build and a training run (about `reproduce --quick` under
# instrumentation), so for one default `reproduce` the plain
# `cargo build --release` of the README is quicker overall.
#
# How (the rustc book, "Profile-guided Optimization"): build with
# -Cprofile-generate, run a training workload that writes .profraw files,
# merge them with LLVM's llvm-profdata (rustup's llvm-tools component,
# which matches rustc's LLVM), and build again with -Cprofile-use. PGO
# changes where code is laid out and what is inlined, never the
# arithmetic, so the engine's output does not change.
#
# Everything it writes is under target/ (cargo's): target/pgo-generate
# (the instrumented build), target/pgo (the result and the merged
# profile). The training's own output goes to a temporary folder that it
# makes and removes.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
  rustup component add llvm-tools
fi
if [ ! -x "$profdata" ]; then
  echo "build-pgo.sh: $profdata not found: install the toolchain's llvm-tools component (rustup component add llvm-tools)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== instrumented build (target/pgo-generate)"
RUSTFLAGS="-Cprofile-generate=$work/raw" CARGO_TARGET_DIR=target/pgo-generate \
  cargo build --release --locked -p losslab
trained=target/pgo-generate/release/losslab

# The training: every paper's experiments at --quick scale (the BBR-era
# stack at 1 Gbit/s, the mobile paper's links, many short web flows) and
# the modern-stack benchmark.
echo "== training: reproduce --quick, bench --modern"
"$trained" reproduce --quick --out "$work/train" >/dev/null
"$trained" bench --modern --seconds 5 >/dev/null

mkdir -p target/pgo
"$profdata" merge -o target/pgo/losslab.profdata "$work/raw"

echo "== optimised build (target/pgo)"
RUSTFLAGS="-Cprofile-use=$PWD/target/pgo/losslab.profdata" CARGO_TARGET_DIR=target/pgo \
  cargo build --release --locked -p losslab
echo "built target/pgo/release/losslab"
