# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.kea_dhcp4 (docs/publish.md)."""

from __future__ import annotations

DOCUMENTATION = r'''
name: kea_dhcp4
author: netpool.ipam engineers (@netpool)
requirements:
  - netaddr (Python library on the controller)
  - dnspython (Python library on the controller)
version_added: 1.0.0
short_description: A Kea DHCPv4 configuration with a host reservation for every reservation that has a MAC
description:
  - Turns the result of M(netpool.ipam.info) into a whole Kea DHCPv4 configuration (a dict whose one key is C(Dhcp4)) - the
    server settings given in O(config) plus C(subnet4), one entry per IPv4 subnet of the pools.
  - A child pool's subnet (carved from a subnet of its parent) shares the parent's segment - it has no entry of
    its own - its hosts are reservations of the parent subnet's entry, each with the options the child sets
    otherwise than the parent (its own C(option-data)). So every entry's C(id) is unique.
  - Each subnet has a stable C(id) (its network address as a number - Kea ties leases to it), its gateway as the
    C(routers) option, its IPv4 DNS servers as C(domain-name-servers) and its pool's C(domain) metadata as
    C(domain-name), and a reservation (C(hw-address), C(ip-address), C(hostname)) per reservation whose metadata
    has a C(mac). A reservation without a MAC is left out (it is still published in DNS).
  - The C(hostname) is the reservation's C(hostname) metadata, else its owner when the owner is a host name;
    a name without a dot is qualified with the pool's C(domain).
  - Runs on the controller and reads nothing but its input. The output is sorted (subnets by network,
    reservations by address), so an unchanged store gives an unchanged file.
  - One MAC given to two owners in one subnet fails, naming both (C(error invalid_argument)).
options:
  _input:
    description: The registered result of M(netpool.ipam.info) (it has C(pools) and C(reservations)).
    type: dict
    required: true
  config:
    description:
      - The rest of the C(Dhcp4) object - C(interfaces-config), C(lease-database), timers, logging. Its own
        C(subnet4), if any, is replaced.
    type: dict
    default: {}
seealso:
  - plugin: netpool.ipam.kea_dhcp6
    plugin_type: filter
  - plugin: netpool.ipam.dnsmasq_hosts
    plugin_type: filter
  - module: netpool.ipam.info
notes:
  - Check the result with C(kea-dhcp4 -t FILE); the role C(netpool.ipam.publish) does so before it puts the file
    in place.
'''

EXAMPLES = r'''
- name: Read the pools and reservations
  netpool.ipam.info:
  register: ipam

- name: Write the Kea DHCPv4 configuration, checked by Kea itself
  ansible.builtin.copy:
    content: "{{ ipam | netpool.ipam.kea_dhcp4(config=kea_settings) | to_nice_json }}"
    dest: /etc/kea/kea-dhcp4.conf
    mode: "0644"
    validate: kea-dhcp4 -t %s
  vars:
    kea_settings:
      interfaces-config: {interfaces: [eth0]}
      lease-database: {type: memfile, lfc-interval: 3600}
'''

RETURN = r'''
_value:
  description: The configuration, a dict whose one key is C(Dhcp4), with C(subnet4) holding the subnets and their reservations.
  type: dict
  sample:
    Dhcp4:
      interfaces-config: {interfaces: []}
      subnet4:
        - id: 168427520
          subnet: 10.10.0.0/24
          option-data:
            - {name: routers, data: 10.10.0.1}
            - {name: domain-name-servers, data: 10.10.0.2}
            - {name: domain-name, data: example.test}
          reservations:
            - {hw-address: "52:54:00:00:00:01", ip-address: 10.10.0.10, hostname: web01.example.test}
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module


def kea_dhcp4(info, config=None):
    return _publish.kea(info, 4, config)


FilterModule = filter_module('kea_dhcp4', kea_dhcp4)
