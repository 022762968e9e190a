#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: info
short_description: Report pools, reservations, utilization and history
version_added: 0.1.0
description:
  - Reads the netpool.ipam store of a namespace. Never changes anything.
  - Returns the pools (with size, used, free and utilization), the reservations, and optionally the history of
    changes and a map of every range.
  - Runs on the controller (see the notes).
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes.info
options:
  pool:
    description:
      - Only this pool and its reservations. A pool that does not exist fails with C(error=pool_not_found).
    type: str
  owner:
    description:
      - Only the reservations (and history) of this owner.
    type: str
  key:
    description:
      - Only the reservations of this key.
    type: str
  address:
    description:
      - Only the reservation (and history) of this address.
    type: str
  history:
    description:
      - Also return the history of changes (pools, ranges, reservations, releases, lease expiries) matching the
        filters.
    type: bool
    default: false
  map:
    description:
      - Also return, per range of at most 4,096 addresses, a map string with one character per address,
        C(X) reserved, C(.) free (dynamic allocation could take it now), C(-) not handed out (an exclusion, the
        gateway, a child pool, or an address resting under the pool's reuse_delay).
    type: bool
    default: false
seealso:
  - module: netpool.ipam.pool
  - module: netpool.ipam.reservation
"""

EXAMPLES = r"""
- name: Utilization of every pool
  netpool.ipam.info:
  register: ipam
  run_once: true

- name: Warn about pools over 90%
  ansible.builtin.debug:
    msg: "{{ item.name }} is {{ item.utilization }}% full ({{ item.free }} free)"
  loop: "{{ ipam.pools | selectattr('utilization', '>', 90) }}"
  run_once: true

- name: Who held 10.0.0.10, and when
  netpool.ipam.info:
    address: 10.0.0.10
    history: true
  register: ipam
  run_once: true

- name: The map of the web pool
  netpool.ipam.info:
    pool: web
    map: true
  register: ipam
  run_once: true
"""

RETURN = r"""
pools:
  description:
    - The pools of the namespace (or the one O(pool)), sorted by name, with the fields of RV(netpool.ipam.pool#module:pool).
    - With O(map=true), every subnet also has C(map), a list of C(range) / C(map) pairs; C(map) is null for a
      range of more than 4,096 addresses.
  returned: success
  type: list
  elements: dict
  sample:
    - namespace: default
      name: web
      subnets:
        - cidr: 10.0.0.0/24
          gateway: 10.0.0.1
          dns: [10.0.0.2]
          ranges: [10.0.0.10-10.0.0.50]
          exclude: [10.0.0.20-10.0.0.20]
          size: 40
          used: 1
          free: 39
          utilization: 2.5
          map:
            - range: 10.0.0.10-10.0.0.50
              map: X.........-..............................
      parent: null
      children: []
      strategy: first
      reuse_delay: 0
      description: web
      metadata: {}
      size: 40
      used: 1
      free: 39
      utilization: 2.5
      leased: 0
      expired: 0
      created_at: '2026-01-31T12:00:00Z'
      updated_at: '2026-01-31T12:00:00Z'
reservations:
  description:
    - The reservations matching the filters, sorted by pool and address, with the fields of
      RV(netpool.ipam.reservation#module:reservation).
  returned: success
  type: list
  elements: dict
  sample:
    - namespace: default
      pool: web
      owner: web1
      key: default
      address: 10.0.0.10
      prefix_length: 24
      cidr: 10.0.0.10/24
      netmask: 255.255.255.0
      network: 10.0.0.0/24
      gateway: 10.0.0.1
      dns: [10.0.0.2]
      static: false
      metadata: {}
      created_at: '2026-01-31T12:00:00Z'
      updated_at: '2026-01-31T12:00:00Z'
      expires_at: null
history:
  description:
    - The changes matching the filters, oldest first. C(object) is C(pool), C(range) or C(reservation); C(action)
      is for example C(create), C(update), C(delete), C(add), C(remove), C(reserve), C(move), C(renew),
      C(reassign), C(release) or C(expire); C(old) and C(new) are the object before and after.
  returned: when O(history=true)
  type: list
  elements: dict
  sample:
    - id: 2
      time: '2026-01-31T12:00:00Z'
      namespace: default
      pool: web
      object: reservation
      action: reserve
      owner: web1
      key: default
      address: 10.0.0.10
      old: null
      new: {address: 10.0.0.10, owner: web1, key: default, pool: web, namespace: default}
error:
  description:
    - On failure, what went wrong, as a stable code.
    - C(pool_not_found), C(invalid_argument) (for example a malformed O(address)), C(store_busy),
      C(store_unavailable), C(store_version), C(unsupported).
  returned: failure
  type: str
  sample: pool_not_found
"""

from ansible_collections.netpool.ipam.plugins.module_utils._module import run_module


def main():
    run_module('info')


if __name__ == '__main__':
    main()
