#!/usr/bin/env bash
# Debian's Chromium for the pool map's test (tests/unit/playbooks/test_pool_map.py reads the page's DOM with
# `chromium --headless --dump-dom`): installed once when missing. Where it cannot be installed, say why; the
# test then skips (NETPOOL_IPAM_TEST_CHROMIUM=required makes it fail instead).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "chromium.sh: chromium is missing and apt-get cannot run here (not root, or not Debian): the pool map's browser test skips" >&2
    exit 0
fi
apt-get install -y chromium >/dev/null || {
    echo "chromium.sh: apt-get install chromium failed: the pool map's browser test skips" >&2
    exit 0
}
