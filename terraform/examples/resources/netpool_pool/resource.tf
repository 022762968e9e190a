resource "netpool_pool" "web" {
  name = "web"
  subnets = [{
    cidr    = "10.0.0.0/24"
    gateway = "10.0.0.1"
    dns     = ["10.0.0.2"]
    ranges  = ["10.0.0.10-10.0.0.200"]
    exclude = ["10.0.0.50"]
  }]
  reuse_delay = "1h"
  metadata    = { domain = "example.test" }
}

# A child pool: a /26 carved out of web
resource "netpool_pool" "web_ci" {
  name          = "web-ci"
  parent        = netpool_pool.web.name
  prefix_length = 26
}

# A child by ranges: VIPs beside the nodes' range in web's /24 (web's gateway and dns are its own)
resource "netpool_pool" "web_vips" {
  name   = "web-vips"
  parent = netpool_pool.web.name
  ranges = ["10.0.0.240-10.0.0.250"]
}
