data "netpool_pool" "web" {
  name = "web"
}

output "web_free" {
  value = "${data.netpool_pool.web.free} of ${data.netpool_pool.web.size} free"
}
