#!/usr/bin/env bash
# netpool.ipam.info against hosts Ansible cannot connect to (see ../setup_netpool/run.sh).
set -eux
cd "$(dirname "$0")"
source ../setup_netpool/run.sh
run_target . "$@"
