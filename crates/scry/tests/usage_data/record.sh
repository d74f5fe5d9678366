#!/bin/sh
# Records ccusage's reports of the shared corpus into this directory (run from the repo root).
# ccusage is not part of the repo or CI; it was installed once in /tmp with
#   npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24
# and run on a copy of the corpus home (it reads every agent it knows there), offline (its own
# embedded price snapshot), in UTC:
set -eu
CCUSAGE=${CCUSAGE:-/tmp/ccusage-kilo/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage}
home=$(mktemp -d)
cp -a ../shared/corpus/real/home/. "$home"
for report in session daily; do
  env -i PATH=/usr/bin:/bin HOME="$home" TZ=UTC "$CCUSAGE" "$report" --json --offline \
    > crates/scry/tests/usage_data/ccusage-$report.json
done
rm -rf "$home"
