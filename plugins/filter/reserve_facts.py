# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.reserve_facts: internal to the reserve role, run once for the play (``plugin_utils/_reserve.py``).
Its input and output may change with the role."""

from __future__ import annotations

DOCUMENTATION = r'''
name: reserve_facts
author: netpool.ipam engineers (@netpool)
version_added: 1.0.0
short_description: What each host got from the reserve role (internal to the role)
description:
- Used by role C(netpool.ipam.reserve), once for the play. Its input and output may change with the role.
- Indexes by host the registered results of the role's M(netpool.ipam.reservation) calls, and says the failure that
  stops the play, if any (wrong requests, or a failed call, naming the hosts that asked).
options:
  _input:
    description: The registered loop of the role's reservation task.
    type: dict
    required: true
  plan:
    description: The plan the calls were made from; by default the items of the registered loop (the output of
      P(netpool.ipam.reserve_plan#filter)).
    type: dict
  previous:
    description: The index of an earlier run of the role in the play.
    type: dict
  check:
    description: Whether the play runs in check mode.
    type: bool
    default: false
'''

EXAMPLES = r'''
# see roles/reserve/tasks/main.yml
'''

RETURN = r'''
_value:
  description: C(hosts) (the index), C(fatal) (a message, empty on success), C(table) and C(changed).
  type: dict
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve


def reserve_facts(results, plan=None, previous=None, check=False):
    return _reserve.facts(results, plan, previous, check)


class FilterModule:
    """netpool.ipam.reserve_facts"""

    def filters(self):
        return {'reserve_facts': reserve_facts}
