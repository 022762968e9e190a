terraform {
  required_providers {
    netpool = {
      source  = "terraform.local/netpool/netpool"
      version = "1.1.0"
    }
  }
}

# The store the netpool.ipam playbooks use: a path, postgresql://... or netbox+https://...
provider "netpool" {
  store   = "ipam.sqlite"
  timeout = 30
}
