# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.kea_dhcp6 (docs/publish.md)."""

from __future__ import annotations

DOCUMENTATION = r'''
name: kea_dhcp6
author: netpool.ipam engineers (@netpool)
requirements:
  - netaddr (Python library on the controller)
  - dnspython (Python library on the controller)
version_added: 1.0.0
short_description: A Kea DHCPv6 configuration with a host reservation for every reservation that has a MAC
description:
  - Turns the result of M(netpool.ipam.info) into a whole Kea DHCPv6 configuration (a dict whose one key is C(Dhcp6)) - the
    server settings given in O(config) plus C(subnet6), one entry per IPv6 subnet of the pools.
  - A child pool's subnet (carved from a subnet of its parent) shares the parent's segment - it has no entry of
    its own - its hosts are reservations of the parent subnet's entry, each with the options the child sets
    otherwise than the parent (its own C(option-data)). So every entry's C(id) is unique.
  - Each subnet has a stable C(id) (a CRC-32 of its CIDR; two subnets with the same one fail), its IPv6 DNS
    servers as the C(dns-servers) option, its pool's C(domain) metadata as C(domain-search), and a reservation
    (C(hw-address), C(ip-addresses), C(hostname)) per MAC. The addresses one owner holds behind one MAC in the
    subnet (several keys) are one reservation. DHCPv6 has no router option - routers announce themselves.
  - A reservation without a C(mac) in its metadata is left out (it is still published in DNS). The C(hostname)
    is chosen as in P(netpool.ipam.kea_dhcp4#filter).
  - Runs on the controller and reads nothing but its input; the output is sorted.
  - One MAC given to two owners in one subnet fails, naming both (C(error invalid_argument)).
options:
  _input:
    description: The registered result of M(netpool.ipam.info) (it has C(pools) and C(reservations)).
    type: dict
    required: true
  config:
    description:
      - The rest of the C(Dhcp6) object - C(interfaces-config), C(lease-database), timers, logging. Its own
        C(subnet6), if any, is replaced.
    type: dict
    default: {}
seealso:
  - plugin: netpool.ipam.kea_dhcp4
    plugin_type: filter
  - module: netpool.ipam.info
notes:
  - Check the result with C(kea-dhcp6 -t FILE); the role C(netpool.ipam.publish) does so before it puts the file
    in place. Kea identifies DHCPv6 clients by DUID first; reservations by C(hw-address) need the MAC to reach
    the server (a relay that adds it, or a client on the link).
'''

EXAMPLES = r'''
- name: Write the Kea DHCPv6 configuration, checked by Kea itself
  ansible.builtin.copy:
    content: "{{ ipam | netpool.ipam.kea_dhcp6(config={'interfaces-config': {'interfaces': ['eth0']}}) | to_nice_json }}"
    dest: /etc/kea/kea-dhcp6.conf
    mode: "0644"
    validate: kea-dhcp6 -t %s
'''

RETURN = r'''
_value:
  description: The configuration, a dict whose one key is C(Dhcp6), with C(subnet6) holding the subnets and their reservations.
  type: dict
  sample:
    Dhcp6:
      subnet6:
        - id: 1492144541
          subnet: 2001:db8:10::/64
          option-data:
            - {name: dns-servers, data: "2001:db8:10::2"}
            - {name: domain-search, data: example.test}
          reservations:
            - {hw-address: "52:54:00:00:00:01", ip-addresses: ["2001:db8:10::10"], hostname: web01.example.test}
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _publish
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module


def kea_dhcp6(info, config=None):
    return _publish.kea(info, 6, config)


FilterModule = filter_module('kea_dhcp6', kea_dhcp6)
