#!/usr/bin/env bash
# The inventory plugin netpool.ipam.reservations: a play reserves, ansible-inventory and ansible-playbook
# read the store through inventory sources (netpool.yml, eth1.netpool.yml), a missing store and a missing pool
# fail with their code, and a read leaves the store as it was.
set -eux
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUTPUT_DIR:-$(mktemp -d)}/inventory_reservations"
rm -rf "$out"
mkdir -p "$out"
cd "$out"
export NETPOOL_IPAM_STORE=inventory.sqlite
export ANSIBLE_INVENTORY_UNPARSED_FAILED=true

# nothing reserved yet: no store, which fails naming the file, and no store file made by reading
if ansible-inventory -i "$here/netpool.yml" --list > absent.out 2>&1; then
    echo "a missing store did not fail"; exit 1
fi
grep -q '(error store_unavailable)' absent.out
grep -qF "SQLite store $(pwd -P)/inventory.sqlite does not exist" absent.out
test ! -e inventory.sqlite

ansible-playbook -i localhost, "$here/setup.yml" "$@"
sum_before="$(sha256sum inventory.sqlite)"

ansible-inventory -i "$here/netpool.yml" --graph "$@"
ansible-playbook -i "$here/netpool.yml" "$here/check.yml" "$@"

ansible-inventory -i "$here/eth1.netpool.yml" --list > eth1.json
python -c '
import json, sys
def plain(v):
    while isinstance(v, dict) and list(v) == ["__ansible_unsafe"]:
        v = v["__ansible_unsafe"]
    return v
hostvars = json.load(open("eth1.json"))["_meta"]["hostvars"]
got = dict((h, plain(v["ansible_host"])) for h, v in hostvars.items())
sys.exit(0 if got == {"web1": "10.61.0.1", "backup1": "10.61.0.2"} else "eth1 inventory: %r" % got)
'

if ansible-inventory -i "$here/missing.netpool.yml" --list > missing.out 2>&1; then
    echo "a missing pool did not fail"; exit 1
fi
grep -q '(error pool_not_found)' missing.out
if grep -q Traceback missing.out; then echo "a traceback"; exit 1; fi

test "$(sha256sum inventory.sqlite)" = "$sum_before"
