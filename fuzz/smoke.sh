#!/usr/bin/env bash
# CI smoke run of the fuzz targets: builds them (stable toolchain, SanitizerCoverage, no
# cargo-fuzz needed) and runs each for a few seconds from the seed corpus. Fails when a target
# crashes, hangs past libFuzzer's -timeout, or does not build.
#
#   fuzz/smoke.sh [SECONDS-PER-TARGET]        (default 5)
set -uo pipefail
. "$(dirname "$0")/common.sh"

secs="${1:-5}"
build_plain fuzz-smoke || { echo "fuzz targets failed to build" >&2; exit 2; }
make_seeds >/dev/null

passed=0
failed=0
for t in "${TARGETS[@]}"; do
    if run_target "$t" "$secs"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "fuzz-smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
