#!/bin/sh
# Backport a merged PR onto release branches: scripts/cherry-pick.sh <pr> release-2.5 [release-2.4]
set -eu
pr="$1"; shift
for branch in "$@"; do
  git switch -c "backport/${branch#release-}/$pr" "origin/$branch"
done
