#!/usr/bin/env bash
# netpool.ipam.reservation against hosts Ansible cannot connect to (see ../setup_netpool/run.sh).
set -eux
cd "$(dirname "$0")"
source ../setup_netpool/run.sh
run_target . "$@"


# The reserve role in check mode (--check, as ansible_check_mode sees it): a pool the run would create is
# not a failure; any other failure stops the host with the module's message and code.
here="$(pwd)"
out="${OUTPUT_DIR:-$(mktemp -d)}/reservation_role_check"
rm -rf "$out"
mkdir -p "$out"
(
    cd "$out"
    export NETPOOL_IPAM_STORE=role.sqlite
    ansible localhost -c local -m netpool.ipam.pool -a "name=web cidr=10.0.0.0/24" "$@"
    ansible-playbook -i "$INVENTORY" "$here/role_check.yml" --check "$@"
)
