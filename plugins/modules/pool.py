#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: pool
short_description: Declare an IP address pool
version_added: 1.0.0
description:
  - Creates, updates or deletes a named pool of IP addresses in a namespace of the netpool.ipam store.
  - A pool has one or more subnets (IPv4 and IPv6 may be mixed); each subnet has a CIDR, an optional gateway and
    DNS servers, allocatable ranges and exclusions. Give them with O(subnets), or give one subnet with the
    shorthand O(cidr), O(gateway), O(dns), O(ranges) and O(exclude).
  - With O(parent) and O(prefix_length) instead, the pool is a child pool carved from the first free aligned
    prefix of its parent.
  - With O(parent) and O(ranges) (and no O(cidr)), the pool is a child pool by ranges. It holds exactly those ranges of
    its parent's subnets, for example VIPs V(10.0.0.240-10.0.0.250) beside nodes V(10.0.0.10-10.0.0.200) in one
    /24. It is a child in every other respect.
  - Options not given are left as they are on an existing pool. A change that would leave a reservation outside
    every subnet fails with C(error=pool_in_use) unless O(force=true). Shrinking ranges never touches
    reservations.
  - Runs on the controller (see the notes).
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes
options:
  name:
    description:
      - The name of the pool, unique in its namespace.
    type: str
    required: true
  state:
    description:
      - V(present) creates or updates the pool.
      - V(absent) deletes it. A pool that still has reservations or child pools fails with C(error=pool_in_use)
        unless O(force=true), which releases them (recorded in history) and deletes the child pools too.
    type: str
    choices: [present, absent]
    default: present
  subnets:
    description:
      - The subnets of the pool, in the order dynamic allocation tries them.
      - Replaces the pool's list of subnets. Keys not given on a subnet that already exists (same CIDR) keep
        their values.
      - A subnet given with a new CIDR that contains, or is contained in, exactly one subnet of the pool is that
        subnet resized; its O(subnets[].gateway), O(subnets[].dns), explicit O(subnets[].ranges) and
        O(subnets[].exclude) carry over unless given anew. A gateway, range or exclusion that would fall outside
        the new CIDR fails with C(error=invalid_argument) naming it; give it anew with the new CIDR, or remove it
        first. Ranges never given stay so (the resized subnet allocates its own usable hosts). Subnets split from
        one each keep what falls inside them.
      - A CIDR that contains several subnets of the pool merges them; nothing carries over, and it fails with
        C(error=invalid_argument) unless the gateway, DNS servers, explicit ranges and exclusions they had are
        given anew.
      - Mutually exclusive with O(cidr) and O(parent).
    type: list
    elements: dict
    suboptions:
      cidr:
        description:
          - The subnet, for example V(10.0.0.0/24) or V(2001:db8::/64).
        type: str
        required: true
      gateway:
        description:
          - The gateway address. It is never handed out dynamically.
        type: str
      dns:
        description:
          - DNS servers returned with every reservation of the subnet.
        type: list
        elements: str
      ranges:
        description:
          - The allocatable ranges, as V(10.0.0.10-10.0.0.50), V(10.0.0.64/26) or one address V(10.0.0.7).
          - When never given, every usable host address of the subnet is allocatable (IPv4 all but the network
            and broadcast addresses up to /30; IPv6 all but the subnet-router address).
          - Network and broadcast addresses are left out unless O(force=true).
        type: list
        elements: str
      exclude:
        description:
          - Addresses never handed out dynamically, in the same forms as O(subnets[].ranges).
        type: list
        elements: str
  cidr:
    description:
      - The one-subnet shorthand. Same as O(subnets) with one subnet of this CIDR.
      - A new CIDR that contains, or is contained in, the pool's one subnet resizes it, keeping its gateway, DNS
        servers, explicit ranges and exclusions unless given anew (see O(subnets)).
      - Mutually exclusive with O(subnets) and O(parent).
    type: str
  gateway:
    description:
      - The gateway of the O(cidr) subnet.
    type: str
  dns:
    description:
      - The DNS servers of the O(cidr) subnet.
    type: list
    elements: str
  ranges:
    description:
      - The allocatable ranges of the O(cidr) subnet. See O(subnets[].ranges).
      - With O(parent) and no O(cidr), the ranges of the parent's subnets the child pool holds (a child by ranges).
        Each range lies inside one subnet of the parent (the ranges of a parent that is itself a child by ranges),
        of either family; the child is on the parent's CIDRs, one subnet per parent subnet its ranges touch.
        Network and broadcast addresses are left out unless O(force=true).
      - A range outside the parent fails with C(error=address_out_of_pool), one overlapping another child pool of
        the parent (or any other pool) with C(error=pool_overlap), one covering an address another pool holds (a
        reservation of the parent, say) with C(error=address_in_use) naming the holder.
      - Given again with other ranges, the child is resized under the same rules. Ranges that a reservation of
        the child would be left outside of fail with C(error=pool_in_use) naming the owners, unless
        O(force=true), which releases those reservations. Its own exclusions (M(netpool.ipam.range)) stay with
        their subnet.
      - The parent's gateway, network and broadcast addresses and exclusions hold in the child, derived when an
        address is chosen, never copied. The child returns the parent's gateway and DNS servers on each subnet.
    type: list
    elements: str
  exclude:
    description:
      - The exclusions of the O(cidr) subnet. See O(subnets[].exclude).
    type: list
    elements: str
  parent:
    description:
      - Carve this pool out of the pool O(parent) of the same namespace, with O(prefix_length), or make it a child
        by ranges of it, with O(ranges).
      - With O(prefix_length), the first free aligned prefix of the parent is taken (free of other child pools and
        of the parent's reservations). A full parent fails with C(error=pool_exhausted). A carved child cannot
        change size.
      - The parent never hands out an address of a child pool, and an address resting under the reuse delay of
        one pool of the tree is free in none. Deleting a child leaves its resting addresses resting in its
        parent until their time.
      - Idempotent by name. A child pool cannot change parents, nor become a child of the other kind.
    type: str
  prefix_length:
    description:
      - The prefix length of the child pool carved from O(parent), for example V(26).
      - Mutually exclusive with O(ranges).
    type: int
  strategy:
    description:
      - How dynamic allocation picks a free address. V(first) takes the lowest free address; V(random) picks
        uniformly among free addresses (suits IPv6).
      - A new pool uses V(first) when not given.
    type: str
    choices: [first, random]
  reuse_delay:
    description:
      - How long a released address stays out of dynamic allocation, so that ARP and DNS caches pointing at the
        old holder expire first. Seconds, or a duration such as V(30m), V(12h) or V(7d).
      - A new pool uses V(0) when not given. A static request may still take such an address.
      - The owner that released the address (or whose lease ran out), asking again with the same key and family
        while the address still rests, gets it back (a re-created VM, a host decommissioned and provisioned again
        keep their address), unless another owner took it meanwhile. Once the delay is over the address is free
        to anyone. (New in 1.1.0; 1.0.0 gave a returning owner the next free address.)
    type: str
  description:
    description:
      - A free text description of the pool.
    type: str
  metadata:
    description:
      - A free dict of names to strings, numbers or booleans (site, VLAN, owner team...).
      - C(domain) is the forward DNS zone of the pool's host names (the role C(netpool.ipam.publish)); it is checked
        as a DNS name and kept in lower case without a final dot. A bad one fails with C(error invalid_argument).
    type: dict
  force:
    description:
      - With O(state=present), release the reservations a change of subnets (of a child by ranges, of ranges)
        would leave outside the pool, and allow network and broadcast addresses in ranges.
      - With O(state=absent), delete the pool with its reservations and child pools.
    type: bool
    default: false
seealso:
  - module: netpool.ipam.range
  - module: netpool.ipam.reservation
  - module: netpool.ipam.info
"""

EXAMPLES = r"""
- name: A pool with one subnet (shorthand)
  netpool.ipam.pool:
    name: web
    cidr: 10.0.0.0/24
    gateway: 10.0.0.1
    dns: [10.0.0.2, 10.0.0.3]
    ranges: [10.0.0.10-10.0.0.200]
    exclude: [10.0.0.53]
    description: Web servers

- name: A dual-stack pool, random allocation, addresses kept for an hour after release
  netpool.ipam.pool:
    name: k8s-nodes
    namespace: prod
    strategy: random
    reuse_delay: 1h
    subnets:
      - cidr: 10.1.0.0/22
        gateway: 10.1.0.1
      - cidr: 2001:db8:1::/64
        gateway: 2001:db8:1::1
    metadata:
      vlan: 110

- name: A /26 carved from the web pool
  netpool.ipam.pool:
    name: web-canary
    parent: web
    prefix_length: 26

- name: Nodes and VIPs in one /24 - the nodes' pool
  netpool.ipam.pool:
    name: cluster
    cidr: 10.0.0.0/24
    gateway: 10.0.0.1
    ranges: [10.0.0.10-10.0.0.200]

- name: Nodes and VIPs in one /24 - the VIPs, a child by ranges (it returns the parent's gateway and DNS)
  netpool.ipam.pool:
    name: cluster-vips
    parent: cluster
    ranges: [10.0.0.240-10.0.0.250]

- name: Every task of the play uses the same store
  module_defaults:
    group/netpool.ipam.all:
      store: /srv/ipam/state.sqlite
  block:
    - name: Delete a pool with whatever it still holds
      netpool.ipam.pool:
        name: old-lab
        state: absent
        force: true

- name: Tell a pool that is in use from another failure
  netpool.ipam.pool:
    name: web
    state: absent
  register: deleted
  failed_when: deleted is failed and deleted.error != 'pool_in_use'
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
    - The pool after the change (in check mode, as it would be). An empty dict after O(state=absent).
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
      description: The subnets of the pool, in allocation order.
      type: list
      elements: dict
      contains:
        cidr:
          description: The subnet (of a child by ranges, its parent's subnet).
          type: str
          sample: 10.0.0.0/24
        gateway:
          description: The gateway, or null (of a child by ranges, its parent's, derived).
          type: str
          sample: 10.0.0.1
        dns:
          description: The DNS servers (of a child by ranges, its parent's, derived).
          type: list
          elements: str
          sample: [10.0.0.2]
        ranges:
          description: The allocatable ranges, merged and sorted, each as C(first-last).
          type: list
          elements: str
          sample: [10.0.0.10-10.0.0.200]
        exclude:
          description: The exclusions, merged and sorted, each as C(first-last).
          type: list
          elements: str
          sample: [10.0.0.53-10.0.0.53]
        size:
          description: How many addresses of the subnet dynamic allocation may hand out.
          type: int
          sample: 190
        used:
          description: How many addresses of the subnet are reserved.
          type: int
          sample: 12
        free:
          description: How many addresses of the subnet dynamic allocation could take now.
          type: int
          sample: 178
        utilization:
          description:
            - The percentage of the subnet's allocatable addresses (its ranges less exclusions, the gateway and
              child pools) that are not free, 100 * (size - free) / size.
          type: float
          sample: 6.32
    parent:
      description: The parent pool of a child pool, else null.
      type: str
      sample: null
    by_ranges:
      description:
        - True for a child pool by ranges (O(parent) with O(ranges)), which holds exactly the ranges of its
          subnets; false for any other pool.
        - Its RV(pool.subnets[].cidr) is its parent's, and what the parent withholds (gateway, exclusions) is not
          listed in its RV(pool.subnets[].exclude) (derived, never copied).
      type: bool
      sample: false
    children:
      description: The names of the child pools carved from this pool.
      type: list
      elements: str
      sample: [web-canary]
    strategy:
      description: The allocation strategy, C(first) or C(random).
      type: str
      sample: first
    reuse_delay:
      description: Seconds a released address stays out of dynamic allocation.
      type: int
      sample: 0
    description:
      description: The description.
      type: str
      sample: Web servers
    metadata:
      description: The free metadata dict.
      type: dict
      sample: {vlan: 110}
    size:
      description: How many addresses of the pool dynamic allocation may hand out.
      type: int
      sample: 190
    used:
      description: How many addresses of the pool are reserved.
      type: int
      sample: 12
    free:
      description: How many addresses dynamic allocation could take now.
      type: int
      sample: 178
    utilization:
      description:
        - The percentage of the pool's allocatable addresses (ranges less exclusions, gateways and child pools)
          that are not free, 100 * (size - free) / size.
      type: float
      sample: 6.32
    leased:
      description: How many reservations of the pool have a lease (a C(ttl)).
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
    - The reservations that O(force=true) released (in check mode, would release) because the change left them
      outside every subnet, or because the pool (with its child pools) was deleted; each with the fields of
      RV(netpool.ipam.reservation#module:reservation). Empty when none was released.
  returned: success
  type: list
  elements: dict
  sample:
    - namespace: default
      pool: web
      owner: web3
      key: default
      address: 10.0.1.13
      prefix_length: 24
      cidr: 10.0.1.13/24
      netmask: 255.255.255.0
      network: 10.0.1.0/24
      gateway: 10.0.1.1
      dns: []
      static: false
      metadata: {}
      created_at: '2026-01-31T12:00:00Z'
      updated_at: '2026-01-31T12:00:00Z'
      expires_at: null
diff:
  description:
    - The pool before and after the change, without the counters. C({}) stands for a pool that does not exist.
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
    - C(pool_overlap) (a subnet, or a range of a child by ranges, overlaps another pool of the namespace;
      RV(other_pool) names it),
      C(pool_in_use) (reservations or child pools in the way; RV(addresses) lists them),
      C(pool_not_found) (the O(parent) does not exist), C(pool_exhausted) (the O(parent) has no free prefix left),
      C(address_out_of_pool) (a range of a child by ranges outside its parent),
      C(address_in_use) (a range of a child by ranges over an address another pool holds; RV(holder) names it),
      C(invalid_argument), C(store_busy), C(store_unavailable), C(store_version), C(unsupported) (the NetBox store
      cannot keep a child by ranges), C(internal_error).
  returned: failure
  type: str
  sample: pool_overlap
addresses:
  description: With C(error=pool_in_use), the reservations in the way.
  returned: failure
  type: list
  elements: str
  sample: [10.0.0.10]
pools:
  description: With C(error=pool_in_use) on deletion, the child pools in the way.
  returned: failure
  type: list
  elements: str
  sample: [web-canary]
other_pool:
  description: With C(error=pool_overlap), the pool overlapped.
  returned: failure
  type: str
  sample: db
holder:
  description: With C(error=address_in_use), the reservation holding the address a child by ranges would take.
  returned: failure
  type: dict
  contains:
    pool: {description: "The pool of the reservation (the parent, or another child of it).", type: str}
    owner: {description: The owner of the reservation., type: str}
    key: {description: Its key., type: str}
    address: {description: The address it holds (inside the ranges asked for)., type: str}
  sample: {pool: cluster, owner: node7, key: default, address: 10.0.0.245}
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('pool')


if __name__ == '__main__':
    main()
