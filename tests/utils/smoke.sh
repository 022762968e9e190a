#!/usr/bin/env bash
# The demo journey on one ansible-core set, end to end on a fresh store, then again: the rerun must change nothing.
# Usage: tests/utils/smoke.sh VENV   (make smoke-min: .venv-min, ansible-core 2.19; make smoke-2.20: .venv-2.20)
set -euo pipefail
venv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in first rerun; do
  NETPOOL_IPAM_STORE=$tmp/ipam.sqlite "$venv/bin/ansible-playbook" -i playbooks/inventory/demo.yml playbooks/demo.yml \
    > "$tmp/$run.log" || { cat "$tmp/$run.log"; exit 1; }
done
if grep -E 'changed=[1-9]' "$tmp/rerun.log"; then
  echo "smoke: the rerun changed something"
  exit 1
fi
test -s "$tmp/ipam.sqlite"
echo "smoke: demo journey and idempotent rerun pass on $("$venv/bin/ansible" --version | sed -n 1p)"
