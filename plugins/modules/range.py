#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: range
short_description: Add or remove allocatable ranges and exclusions of an IP address pool
version_added: 1.0.0
description:
  - Adds one or more range specs to a pool, or removes them, as allocatable ranges or as exclusions.
  - A range lies inside one subnet of the pool. Adjacent or overlapping ranges of a kind are merged, and are
    always reported merged and sorted. Removing a range from the middle of another splits it.
  - A subnet that was given no ranges starts from its implicit range (its usable hosts).
  - Ranges govern dynamic allocation only. Removing a range never touches the reservations in it; adding an
    exclusion over a reserved address keeps the reservation, and the address is not reused once released.
  - Of a child pool by ranges (M(netpool.ipam.pool) with O(netpool.ipam.pool#module:parent) and
    O(netpool.ipam.pool#module:ranges)), the allocatable ranges are what it holds of its parent, so an edit
    resizes it under the rules of that module - inside the parent (C(error=address_out_of_pool)), clear of other
    pools (C(error=pool_overlap)) and of addresses they hold (C(error=address_in_use)), and leaving no reservation
    of the child outside its ranges (C(error=pool_in_use) unless O(force=true), which releases them). An address
    it gives up is its parent's again. Its exclusions are edited as anywhere.
  - Runs on the controller (see the notes).
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes
options:
  pool:
    description:
      - The name of the pool.
    type: str
    required: true
  range:
    description:
      - One range spec or a list of them, each V(10.0.0.10-10.0.0.50), V(10.0.0.64/26) or one address
        V(10.0.0.7) (IPv6 alike).
    type: list
    elements: str
    required: true
    aliases: [ranges]
  kind:
    description:
      - V(allocatable) edits the ranges dynamic allocation takes addresses from.
      - V(excluded) edits the exclusions, addresses never handed out dynamically.
    type: str
    choices: [allocatable, excluded]
    default: allocatable
  state:
    description:
      - V(present) adds the ranges, V(absent) removes them.
    type: str
    choices: [present, absent]
    default: present
  force:
    description:
      - Allow network and broadcast addresses (IPv6 the subnet-router address) in allocatable ranges. They are
        left out otherwise.
      - Of a child pool by ranges, also release the reservations that removing its ranges leaves outside them.
    type: bool
    default: false
seealso:
  - module: netpool.ipam.pool
  - module: netpool.ipam.info
"""

EXAMPLES = r"""
- name: Allow 10.0.0.100 to 10.0.0.150 to be handed out
  netpool.ipam.range:
    pool: web
    range: 10.0.0.100-10.0.0.150

- name: Keep the printers' addresses out of dynamic allocation
  netpool.ipam.range:
    pool: office
    kind: excluded
    range:
      - 192.168.1.20-192.168.1.29
      - 192.168.1.250

- name: Stop handing out a block (its reservations stay)
  netpool.ipam.range:
    pool: web
    range: 10.0.0.128/26
    state: absent

- name: One more VIP for a child pool by ranges (taken from its parent)
  netpool.ipam.range:
    pool: cluster-vips
    range: 10.0.0.251
"""

RETURN = r"""
store:
  description: The store read (and written), as RV(netpool.ipam.info#module:store) says.
  returned: success, and every failure but options refused before the store is opened
  type: str
  sample: /home/me/plan/ipam.sqlite
store_created:
  description: True when this task made the store, as RV(netpool.ipam.reservation#module:store_created) says.
  returned: when the task made the store
  type: bool
  sample: true
  version_added: 1.1.0
pool:
  description:
    - The pool after the change (in check mode, as it would be). See RV(pool) of M(netpool.ipam.pool) for every
      field; the most used ones are below.
  returned: success
  type: dict
  contains:
    namespace:
      description: The namespace of the pool.
      type: str
      sample: default
    name:
      description: The name of the pool.
      type: str
      sample: web
    subnets:
      description: The subnets, each with C(cidr), C(gateway), C(dns), C(ranges) and C(exclude) (merged, sorted
        C(first-last) strings) and its C(size), C(used), C(free) and C(utilization).
      type: list
      elements: dict
      sample:
        - cidr: 10.0.0.0/24
          gateway: 10.0.0.1
          dns: []
          ranges: [10.0.0.10-10.0.0.19, 10.0.0.51-10.0.0.100]
          exclude: []
          size: 60
          used: 0
          free: 60
          utilization: 0.0
    parent:
      description: The parent pool of a child pool, else null.
      type: str
      sample: null
    by_ranges:
      description: True for a child pool by ranges (the CIDR, gateway and DNS of its subnets are its parent's).
      type: bool
      sample: false
    children:
      description: The names of the child pools.
      type: list
      elements: str
      sample: []
    strategy:
      description: The allocation strategy.
      type: str
      sample: first
    reuse_delay:
      description: Seconds a released address stays out of dynamic allocation.
      type: int
      sample: 0
    description:
      description: The description.
      type: str
      sample: ''
    metadata:
      description: The free metadata dict.
      type: dict
      sample: {}
    size:
      description: How many addresses dynamic allocation may hand out.
      type: int
      sample: 60
    used:
      description: How many addresses are reserved.
      type: int
      sample: 0
    free:
      description: How many addresses dynamic allocation could take now.
      type: int
      sample: 60
    utilization:
      description: The percentage of allocatable addresses not free.
      type: float
      sample: 0.0
    leased:
      description: How many reservations have a lease.
      type: int
      sample: 0
    expired:
      description: How many leases have expired and not been released yet.
      type: int
      sample: 0
    created_at:
      description: When the pool was created (ISO 8601, UTC).
      type: str
      sample: '2026-01-31T12:00:00Z'
    updated_at:
      description: When the pool last changed (ISO 8601, UTC).
      type: str
      sample: '2026-01-31T12:00:00Z'
released:
  description:
    - The reservations O(force=true) released because a range edit of a child pool by ranges left them outside its
      ranges, each with the fields of RV(netpool.ipam.reservation#module:reservation).
  returned: success, when an edit of a child pool by ranges changed its allocatable ranges
  type: list
  elements: dict
  sample: []
diff:
  description: The pool before and after the change, without the counters.
  returned: in diff mode
  type: dict
  contains:
    before:
      description: The pool before.
      type: dict
    after:
      description: The pool after.
      type: dict
error:
  description:
    - On failure, what went wrong, as a stable code.
    - C(pool_not_found) (no such pool), C(address_out_of_pool) (a range is not inside one subnet of the pool; of a
      child by ranges, not inside its parent), C(invalid_argument) (a malformed range; a child by ranges left with
      no range), C(pool_overlap), C(address_in_use) and C(pool_in_use) (an edit of a child by ranges, see the
      description), C(store_busy), C(store_unavailable), C(store_version), C(unsupported), C(internal_error).
  returned: failure
  type: str
  sample: address_out_of_pool
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('range')


if __name__ == '__main__':
    main()
