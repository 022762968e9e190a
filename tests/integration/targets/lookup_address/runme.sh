#!/usr/bin/env bash
# The lookup netpool.ipam.address against hosts Ansible cannot connect to (see ../setup_netpool/run.sh).
set -eux
cd "$(dirname "$0")"
source ../setup_netpool/run.sh
run_target . "$@"
