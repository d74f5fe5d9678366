#!/bin/bash
# The team store bench (issue 22; bench/RESULTS.md "Team store on PostgreSQL"), one command:
#
#   bench/team-store.sh SCRY ALPHA_HOME BETA_HOME WORKDIR [BASE_SCRY]
#
# - starts a private PostgreSQL cluster in WORKDIR/pg (initdb, a random port, fsync on; as the
#   `postgres` user when run as root) and stops + removes it at the end (KEEP=1 keeps it);
# - indexes ALPHA_HOME (e.g. the bench `default` corpus) and pushes it as machine `alpha`:
#   wall, client CPU, PostgreSQL's CPU (the postmaster's and its children's, from /proc),
#   MB/s of session files, store size; a second push (must send nothing); BETA_HOME (e.g. the
#   `small` profile) as `beta`;
# - reads from the store (both machines) and from alpha's local index with the same binary:
#   `list --global --limit 20` (+ `--machine alpha`), the selective search of the bench marker
#   `quokka-zanzibar-4471`, a common word (`error --limit 20`): median of 5 runs after a
#   warm-up (wall, CPU, max RSS); with BASE_SCRY the store reads of that binary alternate
#   with SCRY's (before / after).
#
# PUSH_WITH=BIN pushes with another binary (the push path of BASE_SCRY, say, while SCRY is still
# being built: the reads wait for SCRY to exist). Homes are read only: scry's index and state go
# to WORKDIR (SCRY_DB, XDG_* dirs).
set -euo pipefail
S=$(realpath "$1"); P=$(realpath "${PUSH_WITH:-$1}"); A=$(realpath "$2"); B=$(realpath "$3"); W=$4; BASE=${5:+$(realpath "$5")}
mkdir -p "$W"; W=$(realpath "$W"); cd "$W" # no Aider history of a cwd is discovered
PGBIN=${SCRY_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
AS=(); [ "$(id -u)" = 0 ] && AS=(runuser -u postgres --) && chown postgres "$W"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${AS[@]}" "$PGBIN/initdb" -D "$W/pg" -U scry -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
"${AS[@]}" "$PGBIN/pg_ctl" -D "$W/pg" -l "$W/pg.log" -w \
  -o "-p $PORT -k $W -c listen_addresses=127.0.0.1" start >/dev/null
stop() { [ "${KEEP:-0}" = 1 ] || { "${AS[@]}" "$PGBIN/pg_ctl" -D "$W/pg" -m fast -w stop >/dev/null; rm -rf "$W/pg"; }; }
trap stop EXIT
U="postgres://scry@127.0.0.1:$PORT/bench"
psql -qAt -h 127.0.0.1 -p "$PORT" -U scry postgres -c "CREATE DATABASE bench"
sql() { psql -qAt -h 127.0.0.1 -p "$PORT" -U scry bench -c "$1"; }
echo "PostgreSQL $(sql 'SHOW server_version') fsync=$(sql 'SHOW fsync') on port $PORT; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# The environment of machine M's scry: HOME = its home, index and state in WORKDIR.
envof() {
  local m=$1 home; [ "$m" = alpha ] && home=$A || home=$B
  echo HOME="$home" TZ=UTC PATH=/usr/bin:/bin SCRY_DB="$W/$m.db" \
    XDG_CONFIG_HOME="$W/xdg-$m/config" XDG_DATA_HOME="$W/xdg-$m/data" \
    XDG_STATE_HOME="$W/xdg-$m/state" XDG_CACHE_HOME="$W/xdg-$m/cache"
}
# PostgreSQL's CPU seconds so far: the postmaster, its reaped children, its live children.
TCK=$(getconf CLK_TCK)
pgcpu() {
  local pm; pm=$(head -1 "$W/pg/postmaster.pid")
  { awk '{print $14+$15+$16+$17}' "/proc/$pm/stat"
    for c in $(cat /proc/"$pm"/task/*/children); do awk '{print $14+$15}' "/proc/$c/stat" 2>/dev/null || true; done
  } | awk -v t="$TCK" '{s+=$1} END {printf "%.1f", s/t}'
}
# One timed step of machine M: wall s, client CPU s, PostgreSQL CPU s, max RSS MB, its output.
step() {
  local label=$1 m=$2; shift 2
  local p0; p0=$(pgcpu)
  # shellcheck disable=SC2046 # envof's words are NAME=value pairs without spaces
  /usr/bin/time -o "$W/time" -f "%e %U %S %M" env -i $(envof "$m") "$P" "$@" $([ "$m" = alpha ] && echo "${ALPHA_ARGS:-}") >"$W/out" 2>"$W/err" || { echo "$label FAILED"; cat "$W/err"; exit 1; }
  local p1; p1=$(pgcpu)
  read -r w u s m < "$W/time"
  echo "$label | ${w} s wall | $(echo "$u + $s" | bc) s client CPU | $(echo "$p1 - $p0" | bc) s PostgreSQL CPU | $((m / 1024)) MB | $(tail -1 "$W/out" | cut -c1-150)"
  LAST_WALL=$w
}
mb() { du -sb "$1"/.claude "$1"/.codex "$1"/.gemini "$1"/.pi 2>/dev/null | awk '{s+=$1} END {printf "%.0f", s/1048576}'; }

echo "## push"
AMB=$(mb "$A"); BMB=$(mb "$B")
[ "${SKIP_INDEX:-0}" = 1 ] || step "alpha: index --all ($AMB MB)" alpha index --all
if [ -n "${PUSH_BUDGET:-}" ]; then
  P0=$(pgcpu); T0=$(date +%s.%N)
  # shellcheck disable=SC2046
  /usr/bin/time -o "$W/time" -f "%e %U %S %M" timeout -s KILL "$PUSH_BUDGET" env -i $(envof alpha) "$P" push "$U" --machine alpha ${ALPHA_ARGS:-} >"$W/out" 2>"$W/err" || true
  T1=$(date +%s.%N); P1=$(pgcpu)
  read -r w u s m < <(tail -1 "$W/time")
  PUSHED=$(sql "SELECT count(*) || ' sessions, ' || round(sum(size) / 1048576.0) || ' MB of session files, ' || sum(events) || ' events' FROM scry_sessions WHERE machine = 'alpha'")
  PMB=$(sql "SELECT round(sum(size) / 1048576.0, 1) FROM scry_sessions WHERE machine = 'alpha'")
  W1=$(echo "$T1 - $T0" | bc)
  echo "alpha: push killed after ${PUSH_BUDGET} s | ${W1} s wall | $(echo "$u + $s" | bc) s client CPU (if it ended) | $(echo "$P1 - $P0" | bc) s PostgreSQL CPU | stored then: $PUSHED"
  echo "  alpha push: $(echo "scale=2; $PMB / $W1" | bc) MB/s of session files (wall); store $(sql "SELECT pg_size_pretty(pg_database_size('bench'))") for $PMB MB"
else
  step "alpha: push (index up to date)" alpha push "$U" --machine alpha
  echo "  alpha push: $(echo "scale=1; $AMB / $LAST_WALL" | bc) MB/s of session files (wall)"
fi
[ -n "${PUSH_BUDGET:-}" ] || step "alpha: second push" alpha push "$U" --machine alpha
step "beta: push (indexes $BMB MB first)" beta push "$U" --machine beta
step "beta: second push" beta push "$U" --machine beta
sql "ANALYZE"
echo "store: $(sql "SELECT pg_size_pretty(pg_database_size('bench'))") database; sessions $(sql 'SELECT count(*) FROM scry_sessions'), bodies $(sql "SELECT pg_size_pretty(sum(length(body))) FROM scry_sessions"), scry_text $(sql "SELECT pg_size_pretty(pg_total_relation_size('scry_text'))") (trigram GIN $(sql "SELECT pg_size_pretty(pg_relation_size('scry_text_trgm'))"))"

while [ ! -x "$S" ]; do sleep 10; done
echo "## reads (median of R runs after a warm-up; R=${REPS:-5}, 1 for the common word without warm-up)"
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
R=${REPS:-5}
read_med() {
  local label=$1 bin=$2; shift 2
  # shellcheck disable=SC2046
  [ "$R" -gt 1 ] && { env -i $(envof alpha) "$bin" "$@" ${ALPHA_ARGS:-} >/dev/null 2>&1 || true; }
  local ws=() cs=() rs=()
  for _ in $(seq "$R"); do
    # shellcheck disable=SC2046
    /usr/bin/time -o "$W/time" -f "%e %U %S %M" env -i $(envof alpha) "$bin" "$@" ${ALPHA_ARGS:-} >"$W/out" 2>"$W/err" || true
    read -r w u s m < <(tail -1 "$W/time"); ws+=("$w"); cs+=("$(echo "$u + $s" | bc)"); rs+=("$m")
  done
  echo "$label | $(printf '%s\n' "${ws[@]}" | med) s wall | $(printf '%s\n' "${cs[@]}" | med) s CPU | $(( $(printf '%s\n' "${rs[@]}" | med) / 1024 )) MB | $(head -c 400 "$W/out" | tr '\n' ' ' | cut -c1-100)$(head -c 200 "$W/err" | tr '\n' ' ')"
}
both() {
  local label=$1; shift
  if [ -n "$BASE" ]; then read_med "base  store $label" "$BASE" "$@" --store "$U"; fi
  read_med "new   store $label" "$S" "$@" --store "$U"
  if [ -n "$BASE" ] && [ "$R" -gt 1 ]; then read_med "base  store $label (again)" "$BASE" "$@" --store "$U"; fi
  read_med "new   local $label" "$S" "$@"
}
both "list --global --limit 20" list --global --limit 20
read_med "new   store list --global --limit 20 --machine alpha" "$S" list --global --limit 20 --machine alpha --store "$U"
read_med "new   store list --global --limit 20 --machine beta" "$S" list --global --limit 20 --machine beta --store "$U"
both "search quokka-zanzibar-4471 --global" search quokka-zanzibar-4471 --global
read_med "new   store search quokka-zanzibar-4471 --global --machine beta" "$S" search quokka-zanzibar-4471 --global --machine beta --store "$U"
# serve --store: 20 sequential requests of a selective search (a connection each in the base
# build, a pooled one in the new): total wall of the 20.
served() {
  local label=$1 bin=$2
  # shellcheck disable=SC2046
  env -i $(envof alpha) "$bin" serve --port 0 --store "$U" ${ALPHA_ARGS:-} >"$W/serve.out" 2>/dev/null &
  local pid=$! addr=""
  for _ in $(seq 100); do addr=$(grep -so 'http://[0-9.:]*' "$W/serve.out" | head -1 || true); [ -n "$addr" ] && break; sleep 0.2; done
  curl -s "$addr/v1/search?q=quokka-zanzibar-4471&global=true" >/dev/null
  local t0 t1; t0=$(date +%s.%N)
  for _ in $(seq 20); do curl -s "$addr/v1/search?q=quokka-zanzibar-4471&global=true" >/dev/null; done
  t1=$(date +%s.%N)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$label serve --store: 20 selective searches over HTTP | $(echo "$t1 - $t0" | bc | cut -c1-6) s wall"
}
if [ -n "$BASE" ]; then served "base " "$BASE"; fi
served "new  " "$S"
if [ -n "$BASE" ]; then served "base " "$BASE"; fi
served "new  " "$S"
# The common word: most sessions are candidates. One run each (a run can take minutes), within
# 12 GB of address space (the base build decodes every candidate at once).
R=1
ulimit -v 12000000
both "search error --global --limit 20" search error --global --limit 20
echo "candidates of 'error': $(sql "SELECT count(DISTINCT session) FROM scry_text WHERE text ILIKE '%error%'") of $(sql 'SELECT count(*) FROM scry_sessions') sessions"
