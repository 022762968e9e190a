# shellcheck shell=sh
# namespace/pool/owner/key (an owner may contain '/')
terraform import 'netpool_reservation.vm["web1"]' default/web/web1/default
