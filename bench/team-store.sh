#!/bin/bash
# The team store figures of RESULTS.md ("Team store on PostgreSQL", issue 22, session 32): the
# generated `small` corpus (seed 1) as HOME, pushed as m1 beside seed 2 as m2 into a local
# PostgreSQL 15 database; paths are that run's (/work/tmp-team), edit them to rerun.
# median of 5 wall times (after one warm-up) of: scry ARGS… with HOME=home1
S=/work/wt-team/target/debug/scry
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() {
  local label="$1"; shift
  env -i HOME=/work/tmp-team/home1 TZ=UTC SCRY_DB=/work/tmp-team/db1.sqlite PATH=/usr/bin:/bin $S "$@" >/dev/null 2>&1
  local ts=() rss=() cpu=()
  for i in 1 2 3 4 5; do
    env -i HOME=/work/tmp-team/home1 TZ=UTC SCRY_DB=/work/tmp-team/db1.sqlite PATH=/usr/bin:/bin /usr/bin/time -o /tmp/team-bench.time -f "%e %U %S %M" $S "$@" >/tmp/team-bench.out 2>/dev/null; local o=$(tail -1 /tmp/team-bench.time)
    read -r w u y m <<< "$o"; ts+=("$w"); cpu+=("$(echo "$u + $y" | bc)"); rss+=("$m")
  done
  echo "$label | $(printf '%s\n' "${ts[@]}" | med) s wall | $(printf '%s\n' "${cpu[@]}" | med) s CPU | $(printf '%s\n' "${rss[@]}" | med) KB | $(head -c 300 /tmp/team-bench.out | tr '\n' ' ' | cut -c1-120)"
}
U="postgres://scry@127.0.0.1:55432/bench"
run "store list --global --limit 20" list --global --limit 20 --store $U
run "store list --global --limit 20 --machine m1" list --global --limit 20 --machine m1 --store $U
run "store search selective" search quokka-zanzibar-4471 --global --store $U
run "store search selective --area all" search quokka-zanzibar-4471 --global --area all --store $U
run "store search selective --machine m2" search quokka-zanzibar-4471 --global --machine m2 --store $U
run "store search common word error --limit 20" search error --global --store $U
run "local list --global --limit 20 (m1 home)" list --global --limit 20
run "local search selective (m1 home)" search quokka-zanzibar-4471 --global
