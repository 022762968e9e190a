#!/usr/bin/env bash
# Time each part of `make test` on a fresh clone (docs/developing.md, "Where the time goes").
#
#   tests/utils/time-parts.sh [CLONE_DIR] [PART...]
#
# Clones this checkout's HEAD into CLONE_DIR (default: a new temporary directory), then runs `make PART` for each
# part in the order `make test` runs them, with .ci/run's environment, and prints one line per part: its exit
# status, wall clock and CPU seconds (user + system of the part's processes and their children). Logs go beside
# the clone, never into it (a file in the clone would end up in the tarball release-check builds).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
clone="${1:-$(mktemp -d)/clone}"
shift || true
parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(venv venv-min venv-2.20 netbox dhcp-dns chromium probe-tools sanity integration
                                   molecule lint release-check docs smoke-min smoke-2.20 terraform units-min units)
logs="$clone.logs"
rm -rf "$clone" "$logs" && mkdir -p "$logs" && git clone -q "$ROOT" "$clone" && cd "$clone" || exit 2
export CI=true NETPOOL_IPAM_TEST_POSTGRESQL=required NETPOOL_IPAM_TEST_NETBOX=required NETPOOL_IPAM_TEST_PUBLISH=required \
       NETPOOL_IPAM_TEST_CHROMIUM=required NETPOOL_IPAM_TEST_NETNS=required
if command -v terraform >/dev/null 2>&1; then export NETPOOL_IPAM_TEST_TERRAFORM=required; fi
for part in "${parts[@]}"; do
    start=$(date +%s.%N)
    /usr/bin/time -o "$logs/$part.time" -f "%U %S" make "$part" </dev/null >"$logs/$part.log" 2>&1
    status=$?
    end=$(date +%s.%N)
    printf '%-14s exit %d %8.1f s wall %8.1f s CPU\n' "$part" "$status" "$(echo "$end - $start" | bc)" \
        "$(tail -1 "$logs/$part.time" | awk '{print $1 + $2}')"
done
echo "logs: $logs"
