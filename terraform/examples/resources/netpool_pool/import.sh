# shellcheck shell=sh
# namespace/name
terraform import netpool_pool.web default/web
# a child by ranges imports the same way
terraform import netpool_pool.web_vips default/web-vips
