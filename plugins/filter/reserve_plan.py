# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.reserve_plan: internal to the reserve role, run once for the play (``plugin_utils/_reserve.py``).
Its input and output may change with the role."""

from __future__ import annotations

DOCUMENTATION = r'''
name: reserve_plan
author: netpool.ipam engineers (@netpool)
version_added: 1.0.0
short_description: The reserve role's requests, checked and grouped (internal to the role)
description:
- Used by role C(netpool.ipam.reserve), once for the play. Its input and output may change with the role.
- Turns the requests of the hosts (one dict per host, in inventory order) into the calls of M(netpool.ipam.reservation)
  that make them, one per state, pool, key, settings and store (the loop of the role's reservation task). When the
  requests are wrong, the loop is one item whose C(error) says what is wrong (the role skips it and stops every host
  with that message).
- Warns of an C(ipam_*) variable in O(names) that no role of the collection reads but that looks like one it does
  (a misspelling), naming the nearest.
options:
  _input:
    description: The requests, one per host.
    type: list
    elements: dict
    required: true
  names:
    description: Names of the variables set for the play (C(lookup('ansible.builtin.varnames', '^ipam_'))).
    type: list
    elements: str
'''

EXAMPLES = r'''
# see roles/reserve/tasks/main.yml
'''

RETURN = r'''
_value:
  description: The calls (C(args), C(defaults), C(hosts), C(label)), or one item with C(error).
  type: list
  elements: dict
'''

from ansible.utils.display import Display

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve

display = Display()


def reserve_plan(requests, names=None):
    for name, nearest in _reserve.misspelled(names):
        display.warning('netpool.ipam.reserve: the variable %s is not one the role reads: did you mean %s?'
                        % (name, nearest))
    return _reserve.items(_reserve.plan(requests))


class FilterModule:
    """netpool.ipam.reserve_plan"""

    def filters(self):
        return {'reserve_plan': reserve_plan}
