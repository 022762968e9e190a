# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The filter netpool.ipam.drift_table: the table of role netpool.ipam.drift (plugin_utils/_drift.py)."""

from __future__ import annotations

DOCUMENTATION = r'''
name: drift_table
author: netpool.ipam engineers (@netpool)
version_added: 1.1.0
short_description: A table of the hosts that drift
description:
  - Turns host names and their results of P(netpool.ipam.drift#filter) into lines of a table - host, missing,
    unreserved, foreign (a foreign address with the owner and key that hold it) - one line per host that drifts,
    in the order given, under a header line.
  - When no host drifts, one line saying so.
options:
  _input:
    description: Each host name and its result of P(netpool.ipam.drift#filter), as a dict (in the order to show).
    type: dict
    required: true
seealso:
  - plugin: netpool.ipam.drift
    plugin_type: filter
'''

EXAMPLES = r'''
- name: The hosts of the play that drift
  ansible.builtin.debug:
    msg: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'ipam_drift')))
             | netpool.ipam.drift_table }}"
  run_once: true
'''

RETURN = r'''
_value:
  description: The lines of the table.
  type: list
  elements: str
  sample:
    - host  missing   unreserved  foreign
    - web1  10.0.0.5  10.0.0.7    10.0.0.9 (web2/default)
'''

from ansible_collections.netpool.ipam.plugins.plugin_utils import _drift
from ansible_collections.netpool.ipam.plugins.plugin_utils._filters import filter_module

FilterModule = filter_module('drift_table', _drift.table)
