#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: info
short_description: Report pools, reservations, utilization and history
version_added: 1.0.0
description:
  - Reads the netpool.ipam store of a namespace, and changes nothing (O(repair=true), deprecated, is the one
    exception until 2.0.0 removes it; use M(netpool.ipam.repair)).
  - Returns the pools (with size, used, free and utilization), the reservations, and optionally the history of
    changes and a map of every range.
  - With O(verify=true), also checks the namespace against the invariants every store keeps and returns the
    problems found; M(netpool.ipam.repair) fixes those that need no human decision.
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
  verify:
    description:
      - Also check the whole namespace (the O(namespace) of the task, whatever the other filters) against the
        invariants every store keeps, and return what is wrong as RV(problems). Writes nothing.
      - "Checked: one holder per address (C(duplicate_holder)); every reservation inside a subnet of its pool
        (C(reservation_outside_pool)) and its pool existing (C(reservation_pool_missing)); each pool's stored free
        space equal to what it may hand out less every address held in the namespace and every address resting
        under a reuse delay (C(free_space_mismatch)), its free spans not overlapping each other
        (C(free_span_overlap)) nor lying outside its subnets (C(free_span_outside_pool)); on NetBox, no IP address
        inside the IP ranges a pool hands out that no reservation of this collection holds (C(unmanaged_address):
        made by hand in NetBox or by another tool, not ours; adopt it with C(netpool.ipam.adopt), or delete it in
        NetBox; it is not a C(free_space_mismatch)); child pools inside their
        parent (C(child_outside_parent); a child by ranges, its ranges) and their parent existing
        (C(parent_missing)); no overlap between pools of the namespace that are not carved one from the other
        (C(pool_overlap); a child by ranges takes its ranges, not its parent's whole subnet); every reservation
        aligned with another pool (M(netpool.ipam.reservation) O(netpool.ipam.reservation#module:align_with)) still at
        its aligned address (C(alignment_mismatch): the owner moved or was released there; a rerun of the task
        realigns it); every stored row of a SQLite or
        PostgreSQL store readable (C(damaged_row), C(damaged_free_span): a row edited by hand or damaged, which
        fails any other read with C(store_unavailable) naming the table and the row)."
      - To check several namespaces, run the task once per namespace (O(namespace) in a loop).
      - The O(pool), O(owner), O(key) and O(address) filters apply to RV(pools) and RV(reservations) only.
    type: bool
    default: false
  repair:
    description:
      - Deprecated, removed in 2.0.0 - use M(netpool.ipam.repair), which does the same and says it writes. Until
        then it still repairs, with a deprecation warning.
      - Verify (as O(verify=true), which it implies) and fix the problems that need no human decision. The free
        space of a pool (C(free_space_mismatch), C(free_span_overlap), C(free_span_outside_pool),
        C(damaged_free_span)) is derived
        state, rebuilt from the pool's subnets, ranges, exclusions, the reservations and the resting addresses,
        in one transaction, recorded in the history (action C(repair)).
      - Everything else is only reported, with a message saying what a person should decide and do.
      - In check mode nothing is written, and RV(repaired) and C(changed) say what would be repaired.
      - C(changed) is true only when something was (or, in check mode, would be) repaired.
      - RV(pools), RV(reservations) and RV(history) are read before the repair; the next read shows its result.
    type: bool
    default: false
seealso:
  - module: netpool.ipam.repair
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

- name: Check the store, and fail on anything wrong (netpool.ipam.repair rebuilds free space)
  netpool.ipam.info:
    verify: true
  register: ipam
  run_once: true
  failed_when: ipam.problems | length > 0
"""

RETURN = r"""
store:
  description:
    - The store read (and written), as a user finds it - the absolute path of a SQLite or JSON file (a relative
      O(store) resolved against the directory C(ansible-playbook) was started from), or the URL with every
      password replaced by C(********). O(store_token) is never shown.
    - "A failed task returns it too, and its C(msg) ends with C((store: LOCATION)) unless it names the store already."
  returned: success, and every failure but options refused before the store is opened
  type: str
  sample: /home/me/plan/ipam.sqlite
pools:
  description:
    - The pools of the namespace (or the one O(pool)), sorted by name, with the fields of RV(netpool.ipam.pool#module:pool).
    - With O(map=true), every subnet also has C(map), a list of C(range) / C(map) pairs; C(map) is null for a
      range of more than 4,096 addresses.
    - The figures are what allocation sees now. A lease past its C(expires_at) is not held (the next allocation
      releases it first), so it is not counted in C(used), and its address counts as C(free) when it goes
      straight back to the pool (no reuse delay); C(expired) counts such leases.
  returned: success
  type: list
  elements: dict
  contains:
    namespace: {description: "The namespace of the pool.", type: str}
    name: {description: "The name of the pool.", type: str}
    subnets:
      description: Its subnets, in allocation order, as RV(netpool.ipam.pool#module:pool.subnets) describes them.
      type: list
      elements: dict
      contains:
        cidr: {description: "The subnet (of a child by ranges, its parent's).", type: str}
        gateway: {description: "The gateway, or null.", type: str}
        dns: {description: "The DNS servers.", type: list, elements: str}
        ranges: {description: "The allocatable ranges as C(first-last).", type: list, elements: str}
        exclude: {description: "The exclusions as C(first-last).", type: list, elements: str}
        size: {description: "How many addresses of the subnet dynamic allocation may hand out.", type: int}
        used: {description: "How many are held now (an expired lease is not).", type: int}
        free: {description: "How many dynamic allocation could take now.", type: int}
        utilization: {description: "100 * (size - free) / size.", type: float}
        map:
          description: With O(map=true), one C(range) / C(map) pair per range; C(map) is null over 4,096 addresses.
          type: list
          elements: dict
          returned: when O(map=true)
    parent: {description: "The parent pool of a child pool, else null.", type: str}
    by_ranges: {description: "True for a child pool by ranges.", type: bool}
    children: {description: "The names of the child pools carved from it.", type: list, elements: str}
    strategy: {description: "C(first) or C(random).", type: str}
    reuse_delay: {description: "Seconds a released address rests before dynamic allocation hands it out again.", type: int}
    description: {description: "The description.", type: str}
    metadata: {description: "The free metadata dict.", type: dict}
    size: {description: "How many addresses of the pool dynamic allocation may hand out.", type: int}
    used: {description: "How many are held now.", type: int}
    free: {description: "How many dynamic allocation could take now.", type: int}
    utilization: {description: "100 * (size - free) / size.", type: float}
    leased: {description: "How many of its reservations have a lease.", type: int}
    expired: {description: "How many leases are past C(expires_at) and not released yet.", type: int}
    created_at: {description: "When the pool was created (ISO 8601, UTC).", type: str}
    updated_at: {description: "When it last changed (ISO 8601, UTC).", type: str}
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
      by_ranges: false
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
    - A lease past its C(expires_at) is not listed, since it is no longer held.
  returned: success
  type: list
  elements: dict
  contains:
    namespace: {description: "The namespace.", type: str}
    pool: {description: "The pool.", type: str}
    owner: {description: "The owner.", type: str}
    key: {description: "The key.", type: str}
    address: {description: "The address.", type: str}
    prefix_length: {description: "The prefix length of its subnet.", type: int}
    cidr: {description: "The address with the prefix length.", type: str}
    netmask: {description: "The netmask of its subnet (IPv4; null for IPv6).", type: str}
    network: {description: "Its subnet.", type: str}
    gateway: {description: "The gateway of its subnet, or null.", type: str}
    dns: {description: "The DNS servers of its subnet.", type: list, elements: str}
    static: {description: "Whether the address was asked for rather than taken dynamically.", type: bool}
    metadata: {description: "The free metadata dict.", type: dict}
    created_at: {description: "When it was made (ISO 8601, UTC).", type: str}
    updated_at: {description: "When it last changed (ISO 8601, UTC).", type: str}
    expires_at: {description: "When its lease expires (ISO 8601, UTC), or null.", type: str}
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
      is for example C(create), C(update), C(delete), C(add), C(remove), C(reserve), C(return) (an owner given back
      the address it released, still resting under the pool's reuse delay), C(move), C(renew), C(reassign),
      C(release) or C(expire); C(old) and C(new) are the object before and after.
  returned: when O(history=true)
  type: list
  elements: dict
  contains:
    id: {description: "The order of the change in the store (increasing).", type: int}
    time: {description: "When (ISO 8601, UTC).", type: str}
    namespace: {description: "The namespace.", type: str}
    pool: {description: "The pool.", type: str}
    object: {description: "C(pool), C(range) or C(reservation).", type: str}
    action: {description: "What was done (see above).", type: str}
    owner: {description: "The owner of a reservation's change, else null.", type: str}
    key: {description: "The key of a reservation's change, else null.", type: str}
    address: {description: "The address of a reservation's change, else null.", type: str}
    old: {description: "The object before (null when it was made).", type: dict}
    new: {description: "The object after (null when it was removed).", type: dict}
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
problems:
  description:
    - With O(verify=true) or O(repair=true), the problems found in the namespace, in this order (duplicate holders
      (by address), reservations outside their pool, free space per pool (by name), child pools, overlapping
      pools, aligned reservations). An empty list when the store keeps every invariant.
    - "C(code): C(duplicate_holder), C(reservation_pool_missing), C(reservation_outside_pool),
      C(free_span_overlap), C(free_span_outside_pool), C(free_space_mismatch), C(parent_missing),
      C(child_outside_parent), C(pool_overlap), C(alignment_mismatch), C(unmanaged_address), C(damaged_row) or
      C(damaged_free_span) (see
      O(verify))."
    - C(pools) (names), C(reservations) (the stored reservations, with C(namespace), C(pool), C(owner), C(key),
      C(address), C(static), C(metadata) and times) and C(addresses) (addresses, C(first-last) spans or CIDRs) are
      the objects involved; C(message) says what is wrong and what to do.
    - C(repairable) is true for the free-space codes, which O(repair=true) fixes; C(repaired) is true once it has
      (in check mode, when it would).
  returned: when O(verify=true) or O(repair=true)
  type: list
  elements: dict
  contains:
    code: {description: "What is wrong (see above).", type: str}
    namespace: {description: "The namespace.", type: str}
    pools: {description: "The names of the pools involved.", type: list, elements: str}
    reservations: {description: "The stored reservations involved.", type: list, elements: dict}
    addresses: {description: "The addresses, C(first-last) spans or CIDRs involved.", type: list, elements: str}
    message: {description: "What is wrong and what to do.", type: str}
    repairable: {description: "Whether M(netpool.ipam.repair) fixes it (the free-space codes).", type: bool}
    repaired: {description: "Whether it was (in check mode, would be) repaired.", type: bool}
  sample:
    - code: duplicate_holder
      namespace: default
      pools: [web]
      reservations:
        - {namespace: default, pool: web, owner: web1, key: default, address: 10.0.0.10, static: false,
           metadata: {}, created_at: '2026-01-31T12:00:00Z', updated_at: '2026-01-31T12:00:00Z', expires_at: null}
        - {namespace: default, pool: web, owner: web2, key: default, address: 10.0.0.10, static: false,
           metadata: {}, created_at: '2026-02-01T12:00:00Z', updated_at: '2026-02-01T12:00:00Z', expires_at: null}
      addresses: [10.0.0.10]
      message: "10.0.0.10 is held by 2 reservations in namespace 'default': ... decide which keeps it and release
        the others ..."
      repairable: false
      repaired: false
    - code: free_span_overlap
      namespace: default
      pools: [web]
      reservations: []
      addresses: [10.0.0.12-10.0.0.50, 10.0.0.30-10.0.0.40]
      message: "The stored free spans 10.0.0.12-10.0.0.50 and 10.0.0.30-10.0.0.40 of pool 'web' overlap ..."
      repairable: true
      repaired: true
repaired:
  description:
    - With O(verify=true) or O(repair=true), one entry per pool whose free spans O(repair=true) rebuilt (in check
      mode, would rebuild), with C(namespace), C(pool), C(problems) (the codes fixed), C(free_before) and C(free_after)
      (its free spans as C(first-last) strings). Always empty without O(repair=true).
  returned: when O(verify=true) or O(repair=true)
  type: list
  elements: dict
  sample:
    - namespace: default
      pool: web
      problems: [free_span_overlap]
      free_before: [10.0.0.12-10.0.0.50, 10.0.0.30-10.0.0.40]
      free_after: [10.0.0.12-10.0.0.50]
error:
  description:
    - On failure, what went wrong, as a stable code.
    - C(pool_not_found), C(invalid_argument) (for example a malformed O(address)), C(store_busy),
      C(store_unavailable), C(store_version), C(unsupported), C(internal_error).
  returned: failure
  type: str
  sample: pool_not_found
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('info')


if __name__ == '__main__':
    main()
