resource "netpool_reservation" "vm" {
  for_each = toset(["web1", "web2", "web3"])
  pool     = netpool_pool.web.name # resources/netpool_pool
  owner    = each.key
  metadata = { mac = "52:54:00:00:00:01", role = "web" }
}

# A static address, held under its own key
resource "netpool_reservation" "vip" {
  pool    = netpool_pool.web.name
  owner   = "lb1"
  key     = "vip"
  address = "10.0.0.50"
  force   = true # 10.0.0.50 is excluded in the pool (resources/netpool_pool)
}

output "addresses" {
  value = { for name, r in netpool_reservation.vm : name => r.cidr }
}
