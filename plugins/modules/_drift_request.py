#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: _drift_request
short_description: Internal to role netpool.ipam.drift, not for playbooks - what one host has configured
version_added: 1.1.0
description:
  - B(Internal:) used by role C(netpool.ipam.drift) (its C(tasks/main.yml)). Its options and output may change with the role.
  - Checks the addresses the host has configured and says whether the role reads the store once for the batch of
    hosts (the play runs its hosts together, C(linear) and the strategies built on it, and no C(when) applies to the
    role) or each host reads it alone.
  - The work is done by the action plugin, on the controller; this module only documents it.
author:
  - netpool.ipam engineers (@netpool)
options:
  addresses:
    description:
      - The addresses the host has configured (an address, or an interface address with its prefix length).
      - Not set (null) fails the host, saying to gather facts or set C(ipam_drift_addresses).
    type: list
    elements: str
attributes:
  check_mode:
    description: Reads variables only.
    support: full
  diff_mode:
    description: Has no diff to return.
    support: none
  platform:
    description: Runs on the controller, in-process, whatever the targets of the play are.
    support: full
    platforms: all
"""

EXAMPLES = r"""
# see roles/drift/tasks/main.yml
"""

RETURN = r"""
addresses:
  description: The addresses, each once, IPv4 first, without prefix lengths.
  returned: success
  type: list
  elements: str
  sample: [10.0.0.5, '2001:db8::5']
batched:
  description: Whether the role reads the store once for the batch (a task run once) rather than on each host.
  returned: success
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(addresses=dict(type='list', elements='str')), supports_check_mode=True)
    module.fail_json(msg='netpool.ipam._drift_request runs on the controller, through its action plugin')


if __name__ == '__main__':
    main()
