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
fi
exec "$VENV/bin/molecule" test "$@"
