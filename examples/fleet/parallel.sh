#!/bin/sh
# GNU parallel as the fleet engine: one lancet step per repository checkout, 4 at a time per
# machine, every report kept, then one summary.
#
#   LANCET_RULE=$PWD/rules/assert-equals.yml LANCET_REPORTS=$PWD/reports \
#       ./parallel.sh checkouts/*
#
# Over several machines (each holding the checkouts at the same paths, lancet on PATH), add
#   --sshlogin 4/build1,4/build2 --workdir . --env LANCET_RULE --env LANCET_REPORTS
# (the reports directory then on a shared file system, or fetched back with --return).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$LANCET_REPORTS"
# step.sh exits 1 for a repository with nothing to change: that is not a failure of the run.
parallel --jobs 4 --joblog "$LANCET_REPORTS/joblog" --halt never \
    "$here/step.sh" {} ::: "$@" || true
lancet report "$LANCET_REPORTS"/*.json
