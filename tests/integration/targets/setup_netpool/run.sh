#!/usr/bin/env bash
# Sourced by the runme.sh of every netpool.ipam target:
#   run_target PLAYBOOK_DIR [ansible-playbook args...]
# 1. runme.yml (the target's tasks/main.yml) against the unreachable hosts of
#    inventory.yml, with the store under OUTPUT_DIR;
# 2. env.yml with NETPOOL_IPAM_STORE set to a *relative* path and the
#    playbook started from another directory: the environment fallback, and
#    the store resolved against the directory ansible-playbook started from.
# The store error cases every target runs (a newer-schema store, a broken one,
# stores locked by another process, remote stores with secrets) are set up
# once, in tasks/store_errors_*.yml and vars/store_errors.yml beside this file.
set -eux

SETUP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INVENTORY="$SETUP_DIR/inventory.yml"

run_target() {
    local target_dir out
    target_dir="$(cd "$1" && pwd)"
    shift
    out="${OUTPUT_DIR:-$(mktemp -d)}/$(basename "$target_dir")"
    rm -rf "$out"
    mkdir -p "$out/cwd"

    ansible-playbook -i "$INVENTORY" "$target_dir/runme.yml" -e "store_dir=$out" "$@"

    (
        cd "$out/cwd"
        NETPOOL_IPAM_STORE=from-env.sqlite ansible-playbook -i "$INVENTORY" "$target_dir/env.yml" "$@"
    )
    test -s "$out/cwd/from-env.sqlite"
    test ! -e "$target_dir/from-env.sqlite"
}
