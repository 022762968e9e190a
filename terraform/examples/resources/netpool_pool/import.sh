# shellcheck shell=sh
# namespace/name
terraform import netpool_pool.web default/web
