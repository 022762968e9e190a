#!/usr/bin/env bash
# The lookup netpool.ipam.address against hosts Ansible cannot connect to (see ../setup_netpool/run.sh),
# then "one inventory line gives a host its address" (fleet/): ansible_host comes from the lookup with
# allocate=true, templated by 10 forked workers at once; a rerun and ansible-inventory give the same addresses.
set -eux
cd "$(dirname "$0")"
source ../setup_netpool/run.sh
run_target . "$@"

fleet="$(pwd)/fleet"
out="${OUTPUT_DIR:-$(mktemp -d)}/lookup_fleet"
rm -rf "$out"
mkdir -p "$out"
(
    cd "$out"
    export NETPOOL_IPAM_STORE=fleet.sqlite
    ansible-playbook -i localhost, -c local "$fleet/pool.yml" "$@"
    ansible-playbook -i "$fleet/hosts.yml" "$fleet/play.yml" -f 10 -e "record=$out/first.json" "$@"
    ansible-playbook -i "$fleet/hosts.yml" "$fleet/play.yml" -f 10 -e "record=$out/again.json" "$@"
    cmp first.json again.json
    ANSIBLE_INVENTORY_ENABLED=ansible.builtin.yaml,ansible.builtin.constructed \
        ansible-inventory -i "$fleet/hosts.yml" -i "$fleet/constructed.yml" --list --output inventory.json
    python -c '
import json, sys
def value(v):
    while isinstance(v, dict) and len(v) == 1:
        v = next(iter(v.values()))
    return v
hostvars = json.load(open("inventory.json"))["_meta"]["hostvars"]
got = dict((h, value(v["fleet_address"])) for h, v in hostvars.items())
sys.exit(0 if got == json.load(open("first.json")) else "ansible-inventory composed other addresses: %r" % got)
'
)
