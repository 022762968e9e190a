#!/usr/bin/env bash
# Run every molecule scenario under extensions/molecule/ against this
# checkout (localhost, no containers). No scenario yet: succeed quietly.
# Arguments are passed to `molecule test` (default: --all).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${NETPOOL_VENV:-$ROOT/.venv}"
cd "$ROOT"

shopt -s nullglob
scenarios=(extensions/molecule/*/molecule.yml)
shopt -u nullglob
if [ "${#scenarios[@]}" -eq 0 ]; then
    echo "molecule: no scenarios under extensions/molecule/ - skipped"
    exit 0
fi

# molecule runs ansible-playbook from PATH and sets its own ANSIBLE_CONFIG:
# use the venv's tools and this checkout (through the collections symlink)
# rather than anything under ~/.ansible/collections.
export PATH="$VENV/bin:$PATH"
export ANSIBLE_COLLECTIONS_PATH="$ROOT/collections"
export ANSIBLE_FORCE_COLOR="${ANSIBLE_FORCE_COLOR:-0}"
export PY_COLORS="${PY_COLORS:-0}"
[ -L "$ROOT/collections/ansible_collections/netpool/ipam" ] \
    || { echo "molecule.sh: collections symlink missing: run 'make venv'" >&2; exit 2; }

if [ "$#" -eq 0 ]; then
    set -- --all
    # The publish scenario needs the real DHCP and DNS servers (make dhcp-dns installs them). Without them it
    # is left out, saying so, unless NETPOOL_IPAM_TEST_PUBLISH=required (CI), where it then fails.
    PATH_SBIN="$PATH:/usr/sbin:/sbin"
    for tool in named kea-dhcp4 kea-dhcp6 dnsmasq named-checkzone dig; do
        if ! PATH="$PATH_SBIN" command -v "$tool" >/dev/null 2>&1 && [ "${NETPOOL_IPAM_TEST_PUBLISH:-}" != required ]; then
            echo "molecule: $tool is not installed (make dhcp-dns installs it as root): scenario publish skipped"
            set -- --all --exclude publish
            break
        fi
    done
fi
exec "$VENV/bin/molecule" test "$@"
