#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: repair
short_description: Rebuild the free space of a netpool.ipam store that is wrong, and report what a person must fix
version_added: 1.1.0
description:
  - Writes to the store. Checks the whole O(namespace) against the invariants every store keeps, as
    M(netpool.ipam.info) with O(netpool.ipam.info#module:verify=true) does, and fixes the problems that need no
    human decision - the free space of a pool (C(free_space_mismatch), C(free_span_overlap),
    C(free_span_outside_pool), C(damaged_free_span)) is derived state, rebuilt from the pool's subnets, ranges,
    exclusions, the reservations and the resting addresses, in one transaction, recorded in the history (object
    C(pool), action C(repair)).
  - Everything else (two holders of one address, a reservation outside its pool, overlapping pools...) is only
    reported in RV(problems), with a message saying what a person should decide and do; nothing is changed for it.
  - C(changed) is true only when something was (in check mode, would be) repaired; a rerun after a repair
    changes nothing.
  - Replaces O(netpool.ipam.info#module:repair) of M(netpool.ipam.info), which is deprecated - an info module
    changes nothing.
  - Runs on the controller, in-process, like every module of the collection.
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
  - netpool.ipam.attributes
notes:
  - In check mode nothing is written; RV(repaired) and C(changed) say what would be repaired.
  - In diff mode the diff shows the free spans of each pool rebuilt, before and after, keyed C(namespace/pool).
  - A store file that does not exist is not created; it has nothing to repair.
seealso:
  - module: netpool.ipam.info
"""

EXAMPLES = r"""
- name: Rebuild free space that is wrong, and fail on what needs a person
  netpool.ipam.repair:
  register: ipam_repair
  run_once: true
  failed_when: ipam_repair.problems | rejectattr('repaired') | list | length > 0

- name: What repair would rebuild in namespace oob, writing nothing
  netpool.ipam.repair:
    namespace: oob
  check_mode: true
  diff: true
  run_once: true
"""

RETURN = r"""
store:
  description: The store read and written, as RV(netpool.ipam.info#module:store) says.
  returned: success, and every failure but options refused before the store is opened
  type: str
  sample: /home/me/plan/ipam.sqlite
problems:
  description:
    - The problems found in the namespace before the repair, each marked C(repaired) once it is fixed (in check
      mode, when it would be); the fields of RV(netpool.ipam.info#module:problems).
    - An empty list when the store keeps every invariant.
  returned: success
  type: list
  elements: dict
  sample:
    - code: free_space_mismatch
      namespace: default
      pools: [web]
      reservations: []
      addresses: [10.0.0.10-10.0.0.10]
      message: "The stored free space of pool 'web' ..."
      repairable: true
      repaired: true
repaired:
  description: One entry per pool whose free spans were (in check mode, would be) rebuilt.
  returned: success
  type: list
  elements: dict
  contains:
    namespace:
      description: The pool's namespace.
      type: str
    pool:
      description: The pool's name.
      type: str
    problems:
      description: The codes of the problems fixed in that pool.
      type: list
      elements: str
    free_before:
      description: Its free spans before, as C(first-last) strings (null when they could not be read).
      type: list
      elements: str
    free_after:
      description: Its free spans after, as C(first-last) strings.
      type: list
      elements: str
  sample:
    - {namespace: default, pool: web, problems: [free_space_mismatch], free_before: [], free_after: [10.0.0.2-10.0.0.14]}
error:
  description:
    - On failure, what went wrong, as a stable code - C(invalid_argument), C(store_busy), C(store_unavailable),
      C(store_version), C(unsupported), C(internal_error).
  returned: failure
  type: str
  sample: store_busy
"""

from ansible_collections.netpool.ipam.plugins.module_utils._task._module import run_module


def main():
    run_module('repair')


if __name__ == '__main__':
    main()
