#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: reserve_request
short_description: The request of one host to the reserve role (internal to the role)
version_added: 1.0.0
description:
  - Used by role C(netpool.ipam.reserve), on every host of the play. Its output may change with the role.
  - Returns the host's request - the role's variables (C(ipam_pool), C(ipam_key)...) as they are for the host,
    from any level (inventory, group, play, role parameters, role defaults) - for the role's run-once tasks. An
    omitted variable is left out. Takes no options and changes nothing.
  - The work is done by the action plugin, on the controller; this module only documents it.
author:
  - netpool.ipam engineers (@netpool)
attributes:
  check_mode:
    description: Reads variables only; it behaves the same in check mode.
    support: full
  diff_mode:
    description: Has no diff to return.
    support: none
  platform:
    description: Runs on the controller, in-process, whatever the targets of the play are.
    support: full
    platforms: all
notes:
  - The request holds the store settings, C(ipam_store_token) too, so the role runs this task with C(no_log).
"""

EXAMPLES = r"""
# see roles/reserve/tasks/main.yml
"""

RETURN = r"""
request:
  description: The host's request (C(host), C(state), C(owner), C(pool), C(key)... and the gathered facts that
    name its MAC).
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule


def main():
    # The action plugin does the work, on the controller; the module itself is never sent to a host.
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    module.fail_json(msg='netpool.ipam.reserve_request runs on the controller (its action plugin), as part of '
                         'role netpool.ipam.reserve')


if __name__ == '__main__':
    main()
