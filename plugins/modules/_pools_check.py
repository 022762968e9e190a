#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: _pools_check
short_description: Internal to role netpool.ipam.pools, not for playbooks - warns about the role's variables
version_added: 1.1.0
description:
  - B(Internal:) a part of role C(netpool.ipam.pools) (its C(tasks/main.yml)), run once before it declares
    anything; not for use in playbooks or roles of your own. Its name, options and output may change in any
    release, with the role. Run the role instead (R(Roles and playbooks,ansible_collections.netpool.ipam.docsite.roles)).
  - Named C(pools_check) in 1.0.0; the leading underscore marks it private.
  - Warns, never fails, about an C(ipam_) variable that no role of the collection reads and that looks like one that
    a role does (C(ipam_pols) for C(ipam_pools)), as role C(netpool.ipam.reserve) does.
  - With O(pools) empty, warns that there is nothing to declare, and names a variable that looks like C(ipam_pools)
    (such as C(ipam_pool), a variable of role C(netpool.ipam.reserve)).
  - The work is done by the action plugin, on the controller; this module only documents it.
author:
  - netpool.ipam engineers (@netpool)
options:
  pools:
    description: The role's C(ipam_pools).
    type: list
    elements: dict
    default: []
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
# see roles/pools/tasks/main.yml
"""

RETURN = r"""
# the common return values only
"""

from ansible.module_utils.basic import AnsibleModule


def main():
    # The action plugin does the work, on the controller; the module itself is never sent to a host.
    module = AnsibleModule(argument_spec=dict(pools=dict(type='list', elements='dict', default=[])),
                           supports_check_mode=True)
    module.fail_json(msg='netpool.ipam._pools_check runs on the controller (its action plugin), as part of '
                         'role netpool.ipam.pools')


if __name__ == '__main__':
    main()
