# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.drift: where a host and the store disagree (roles/drift, plugin_utils/_drift.py)."""

from __future__ import annotations

DOCUMENTATION = r'''
name: drift
author: netpool.ipam engineers (@netpool)
requirements:
  - netaddr (Python library on the controller)
version_added: 1.1.0
short_description: Where the addresses a host has configured and the store disagree
description:
  - Compares the addresses a host has configured with a read of the store (the result of M(netpool.ipam.info) for
    the whole namespace) and returns C(missing), C(unreserved) and C(foreign), the fact C(ipam_drift) of role
    C(netpool.ipam.drift).
  - C(missing) - the reservations of O(owner) (in O(pool), or in any pool) whose address the host has not
    configured, each with C(address), C(pool) and C(key).
  - C(unreserved) - the addresses configured inside a subnet of O(pool) (or of any pool) that no one holds, each
    with C(address) and C(pool) (the innermost pool holding it).
  - C(foreign) - the addresses configured that another owner holds (in O(pool), or in any pool), each with
    C(address), C(pool), C(owner) and C(key) of the reservation.
  - An address in no pool compared is none of them. Each list is in address order, IPv4 first.
  - Runs on the controller and reads nothing but its input. An O(pool) that is not in the input fails with
    C(error pool_not_found).
options:
  _input:
    description: The registered result of M(netpool.ipam.info) for the namespace (it has C(pools) and C(reservations)).
    type: dict
    required: true
  owner:
    description: The owner the host's reservations are held by (the inventory hostname in the role).
    type: str
    required: true
  addresses:
    description: The addresses the host has configured (an address, or one with its prefix length).
    type: list
    elements: str
    required: true
  pool:
    description: Compare in this pool only (none or empty - every pool of the input).
    type: str
seealso:
  - plugin: netpool.ipam.drift_table
    plugin_type: filter
  - module: netpool.ipam.info
  - module: netpool.ipam.adopt
'''

EXAMPLES = r'''
- name: Read the store once
  netpool.ipam.info:
  register: ipam
  run_once: true

- name: Where this host and the store disagree
  ansible.builtin.debug:
    msg: "{{ ipam | netpool.ipam.drift(owner=inventory_hostname, addresses=ansible_facts.all_ipv4_addresses) }}"
'''

RETURN = r'''
_value:
  description: C(missing), C(unreserved) and C(foreign), each a list of dicts.
  type: dict
  sample:
    missing: [{address: 10.0.0.5, pool: web, key: default}]
    unreserved: [{address: 10.0.0.7, pool: web}]
    foreign: [{address: 10.0.0.9, pool: web, owner: web2, key: default}]
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _drift
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module


def drift(store, owner, addresses, pool=None):
    return _drift.drift(store, owner, _drift.configured(addresses, owner), pool or None)


FilterModule = filter_module('drift', drift)
