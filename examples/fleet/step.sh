#!/bin/sh
# One lancet step in one repository, as multi-gitter and GNU parallel run it.
#
#   step.sh [REPO_DIR]      REPO_DIR defaults to the current directory (multi-gitter's clone)
#
# Environment:
#   LANCET_RULE     the ast-grep rule file to run (absolute path)            required
#   LANCET_REPORTS  the directory each repository's JSON report goes to      required
#   LANCET_TEST     the project's test command (then --test ... --bisect)   optional
#   REPOSITORY      the repository's name (multi-gitter sets it)            optional
#
# Exit: 0 the repository changed (status applied, or partial: files held back, open the pull
# request as a draft); 1 nothing to change (already applied, nothing matched, refused, tests
# failed and rolled back: the report says which); 2 or 4 lancet's own (malformed, environment).
# multi-gitter skips a repository whose step exits non-zero, so only changed ones get a pull
# request; `lancet report "$LANCET_REPORTS"/*.json` summarises them all.
set -u
repo=${1:-.}
: "${LANCET_RULE:?set LANCET_RULE to the rule file}"
: "${LANCET_REPORTS:?set LANCET_REPORTS to a directory for the reports}"
name=${REPOSITORY:-$(basename "$(cd "$repo" && pwd)")}
report="$LANCET_REPORTS/$(printf '%s' "$name" | tr '/' '_').json"
if [ -n "${LANCET_TEST:-}" ]; then
    set -- --test "$LANCET_TEST" --bisect
else
    set --
fi
lancet mod -C "$repo" --rule "$LANCET_RULE" "$@" --json --provenance > "$report"
code=$?
status=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "$report" 2>/dev/null)
case "$status" in
    applied | partial) exit 0 ;;
    already_applied | nothing_matched | refused | test_failed) exit 1 ;;
    *) exit "$code" ;;
esac
