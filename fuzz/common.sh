# Shared by run.sh and smoke.sh (sourced, not run): build the fuzz targets, make seed corpora,
# run one target for a while and report executions and crashes.

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$FUZZ_DIR")"
SHARED_CORPUS="${SCRY_SHARED_CORPUS:-$REPO_DIR/../shared/corpus}"
HOST="$(rustc -vV | sed -n 's/^host: //p')"
TARGET_DIR="${CARGO_TARGET_DIR:-$FUZZ_DIR/target}"
TARGETS=(jsonl claude codex gemini dsh opencode kilo pi cursor grok antigravity langgraph shell redact zframes search grams postings deepagents mtagent copilot qwen continue aider)

# The instrumentation cargo-fuzz adds (SanitizerCoverage for libFuzzer), minus AddressSanitizer:
# every flag here is accepted by the stable compiler, so this build needs neither nightly nor
# RUSTC_BOOTSTRAP nor cargo-fuzz itself. The code under test is safe Rust (unsafe_code =
# forbid), so ASan adds little; panics, hangs (-timeout) and memory blow-ups (-rss_limit_mb)
# are caught by libFuzzer either way.
SANCOV_FLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"

# build_plain PROFILE — builds every target with SanitizerCoverage on the stable toolchain.
# Sets BIN_DIR.
build_plain() {
    local profile="$1"
    # --target makes RUSTFLAGS apply to the fuzz targets only, not to build scripts.
    RUSTFLAGS="$SANCOV_FLAGS" cargo build --manifest-path "$FUZZ_DIR/Cargo.toml" \
        --target "$HOST" --target-dir "$TARGET_DIR" --profile "$profile" --bins
    local dir="$profile"
    [ "$profile" = dev ] && dir=debug
    BIN_DIR="$TARGET_DIR/$HOST/$dir"
}

# build_cargo_fuzz — builds every target with `cargo fuzz build -O` (AddressSanitizer on), on
# a nightly toolchain when one is installed, else on stable with RUSTC_BOOTSTRAP=1. Returns 1
# when cargo-fuzz is not installed. Sets BIN_DIR.
build_cargo_fuzz() {
    command -v cargo-fuzz >/dev/null 2>&1 || return 1
    local toolchain=()
    if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        toolchain=(+nightly)
    else
        export RUSTC_BOOTSTRAP=1
    fi
    (cd "$FUZZ_DIR" && cargo "${toolchain[@]}" fuzz build -O --target-dir "$TARGET_DIR") || return 1
    BIN_DIR="$TARGET_DIR/$HOST/release"
}

# make_seeds — fills $FUZZ_DIR/corpus/<target>/ with seeds made from the shared corpus (the
# corpus dirs also keep what libFuzzer found in earlier runs; none of it is committed).
make_seeds() {
    if [ -d "$SHARED_CORPUS" ] && command -v python3 >/dev/null 2>&1; then
        python3 "$FUZZ_DIR/seeds.py" "$SHARED_CORPUS" "$FUZZ_DIR/corpus"
    else
        echo "no seed corpus at $SHARED_CORPUS (or no python3): starting from empty corpora" >&2
        for t in "${TARGETS[@]}"; do mkdir -p "$FUZZ_DIR/corpus/$t"; done
    fi
}

# run_target TARGET SECONDS — runs one target; prints "TARGET SECONDS EXECS CRASHES".
# SCRY_FUZZ_TIMEOUT sets libFuzzer's per-input timeout (default 20 s): raise it on a machine so
# loaded that a nice-19 fuzzer is starved for seconds (a starved input reports as a timeout).
# Returns 1 when it crashed. Crash inputs go to $FUZZ_DIR/artifacts/TARGET/.
run_target() {
    local t="$1" secs="$2"
    local art="$FUZZ_DIR/artifacts/$t/" log="$FUZZ_DIR/logs/$t.log"
    mkdir -p "$art" "$FUZZ_DIR/logs" "$FUZZ_DIR/corpus/$t"
    local before
    before=$(find "$art" -type f | wc -l)
    local start=$SECONDS
    # The targets write their fake HOME under TMPDIR: one private dir per run, removed after.
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/scry-fuzz-run.XXXXXX")
    TMPDIR="$tmp" nice -n 19 "$BIN_DIR/$t" "$FUZZ_DIR/corpus/$t" \
        -max_total_time="$secs" -timeout="${SCRY_FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 -max_len=131072 \
        -artifact_prefix="$art" -print_final_stats=1 >"$log" 2>&1
    local rc=$?
    local took=$((SECONDS - start))
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ -z "$execs" ]; then
        execs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    local after
    after=$(find "$art" -type f | wc -l)
    local crashes=$((after - before))
    printf '%-12s %6ss %12s execs %3s crashes\n' "$t" "$took" "${execs:-0}" "$crashes"
    rm -rf "$tmp"
    if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        echo "  $t: libFuzzer exit $rc; see $log and $art" >&2
        return 1
    fi
    return 0
}
