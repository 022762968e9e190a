#!/usr/bin/env bash
# Run ansible-test on a throwaway copy of this checkout, without Docker.
#
#   tests/utils/ansible-test.sh sanity --venv --python 3.12
#   tests/utils/ansible-test.sh integration --venv --python 3.12 [TARGET...]
#
# Arguments are passed through to ansible-test. Why a copy: ansible-test
# needs the collection at .../ansible_collections/netpool/ipam, resolves
# symlinks, and lists files with git from the nearest .git above (a copy
# inside the work tree skips everything). The copy holds exactly the files
# git would commit (tracked + untracked, not ignored) and is removed at the
# end; tests/output is copied back into the checkout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${NETPOOL_VENV:-$ROOT/.venv}"
ANSIBLE_TEST="$VENV/bin/ansible-test"
[ -x "$ANSIBLE_TEST" ] || { echo "ansible-test.sh: $ANSIBLE_TEST missing: run 'make venv'" >&2; exit 2; }

command="${1:-}"

# `integration` with no target yet: nothing to run is not a failure.
if [ "$command" = integration ]; then
    shopt -s nullglob
    targets=("$ROOT"/tests/integration/targets/*/)
    shopt -u nullglob
    if [ "${#targets[@]}" -eq 0 ]; then
        echo "ansible-test integration: no targets under tests/integration/targets/ - skipped"
        exit 0
    fi
fi

# PATH: the venv first (ansible-test re-executes its own tools), then every
# real pyenv interpreter (the pyenv *shims* exit 127 for non-global versions
# and would be picked up by ansible-test otherwise).
PYENV_ROOT_DIR="$(pyenv root 2>/dev/null || true)"
path_prefix="$VENV/bin"
if [ -n "$PYENV_ROOT_DIR" ] && [ -d "$PYENV_ROOT_DIR/versions" ]; then
    for bin in "$PYENV_ROOT_DIR"/versions/3.*/bin; do
        [ -d "$bin" ] && path_prefix="$path_prefix:$bin"
    done
fi
export PATH="$path_prefix:$PATH"

# `--venv` bootstraps pip with get-pip-<ver>.py from a host that cannot be
# reached here. Put a stand-in in ansible-test's cache: ensurepip, then pip
# install the requested pip.
pip_version="$("$VENV/bin/python" - <<'PY'
import re, ansible_test, os
src = open(os.path.join(os.path.dirname(ansible_test.__file__), '_internal', 'python_requirements.py')).read()
print(re.search(r"\bpip='([^']+)'", src).group(1))
PY
)"
get_pip="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
if ! grep -qs 'netpool get-pip stand-in' "$get_pip"; then
    mkdir -p "$(dirname "$get_pip")"
    cat > "$get_pip" <<'PY'
# netpool get-pip stand-in for ansible-test (the real get-pip.py cannot be
# downloaded here): ensurepip, then install the requested packages with pip.
import subprocess
import sys

args = [a for a in sys.argv[1:] if a not in ('--no-setuptools', '--no-wheel')]
subprocess.check_call([sys.executable, '-m', 'ensurepip', '--upgrade', '--default-pip'])
subprocess.check_call([sys.executable, '-m', 'pip', 'install', '--quiet'] + args)
PY
fi

# The copy, outside any git work tree.
base="$(mktemp -d "${TMPDIR:-/tmp}/netpool-ansible-test.XXXXXX")"
copy="$base/ansible_collections/netpool/ipam"
cleanup() {
    status=$?
    if [ -d "$copy/tests/output" ]; then
        mkdir -p "$ROOT/tests/output"
        cp -a "$copy/tests/output/." "$ROOT/tests/output/" || true
    fi
    rm -rf "$base"
    exit "$status"
}
trap cleanup EXIT
mkdir -p "$copy"
(cd "$ROOT" && git ls-files -z -co --exclude-standard) \
    | (cd "$ROOT" && tar --null --no-recursion -T - -cf - 2>/dev/null || true) \
    | tar -xf - -C "$copy"
# Files deleted but not yet committed are listed by git and missing: tar
# skips them (hence the `|| true`); make sure the copy is not empty.
[ -f "$copy/galaxy.yml" ] || { echo "ansible-test.sh: copy failed" >&2; exit 2; }

cd "$copy"
echo "ansible-test $* (in $copy)"
"$ANSIBLE_TEST" "$@" --color no
