#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, one after the other, at the
# lowest CPU priority, and prints executions and crashes per target.
#
#   fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]        (default 60 s, all targets)
#
# Builds with cargo-fuzz (AddressSanitizer; nightly if installed, else RUSTC_BOOTSTRAP=1 on
# stable) when `cargo fuzz` is installed, else with the stable SanitizerCoverage build of
# common.sh. Seeds come from ../shared/corpus at run time (fuzz/corpus/ is never committed).
# Crash inputs land in fuzz/artifacts/<target>/, logs in fuzz/logs/<target>.log.
# SCRY_FUZZ_PLAIN=1 skips cargo-fuzz; SCRY_FUZZ_PROFILE picks the plain build's profile
# (release, or fuzz-smoke to reuse smoke.sh's quicker build).
# Exit status: 1 when any target crashed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${TARGETS[@]}")

if [ "${SCRY_FUZZ_PLAIN:-0}" != 1 ] && build_cargo_fuzz; then
    echo "built with cargo-fuzz (AddressSanitizer) in $BIN_DIR"
else
    build_plain "${SCRY_FUZZ_PROFILE:-release}" || exit 2
    echo "built with SanitizerCoverage only (no cargo-fuzz) in $BIN_DIR"
fi
make_seeds

failed=0
printf '%-12s %7s %12s %6s %3s\n' target time executions "" crashes
for t in "${targets[@]}"; do
    run_target "$t" "$secs" || failed=1
done
exit "$failed"
