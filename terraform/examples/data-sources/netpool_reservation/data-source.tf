# The address Ansible reserved for db1 (fails with not_reserved when there is none)
data "netpool_reservation" "db1" {
  pool  = "db"
  owner = "db1"
}

output "db1_address" {
  value = data.netpool_reservation.db1.address
}
