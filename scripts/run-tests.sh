#!/usr/bin/env bash
# Runs each test target in turn (each runs its own tests in parallel) and ends with one plain
# tally line. On a 2-core machine, CPU-heavy imaging tests, CLI subprocesses and timing-sensitive
# transfer tests all at once would only measure contention.
set -uo pipefail
swift=${SWIFT:-swift}
targets=(PresenceTransferTests PresenceImagingTests PresenceTests PresenceCLITests)
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
  echo "== $target"
  "$swift" test --skip-build --filter "$target\." 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  count=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -n1 | grep -Eo '[0-9]+' || echo 0)
  issues=$(grep -c '^✘ Test .* failed' "$log" || true)
  if [ "$status" -ne 0 ]; then
    failed=$((failed + (issues > 0 ? issues : 1)))
    passed=$((passed + count - issues))
  else
    passed=$((passed + count))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
