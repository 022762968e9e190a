# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.reserve_fact: internal to the reserve role, run once for the play (``plugin_utils/_reserve.py``).
Its input and output may change with the role."""

from __future__ import annotations

DOCUMENTATION = r'''
name: reserve_fact
author: netpool.ipam engineers (@netpool)
version_added: 1.0.0
short_description: The template of one of the reserve role's facts (internal to the role)
description:
- Used by role C(netpool.ipam.reserve), once for the play. Its output may change with the role.
- Returns the template of a fact (C(ipam_address)...) that reads, for the host it is evaluated for, that host's
  entry of the index the role made, so that one task run once sets each host's own value.
options:
  _input:
    description: The name of the fact.
    type: str
    required: true
'''

EXAMPLES = r'''
# see roles/reserve/tasks/main.yml
'''

RETURN = r'''
_value:
  description: A template string, marked as a template.
  type: str
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _reserve


def reserve_fact(name):
    return _reserve.fact(name)


class FilterModule:
    """netpool.ipam.reserve_fact"""

    def filters(self):
        return {'reserve_fact': reserve_fact}
