#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r"""
module: reserve_request
short_description: The request of one host to the reserve role, and the role's batch (internal to the role)
version_added: 1.0.0
description:
  - Used by role C(netpool.ipam.reserve) (its C(tasks/main.yml)). Its options and output may change with the role.
  - On every host, returns the host's request - the role's variables (C(ipam_pool), C(ipam_key)...) as they are for
    the host, from any level (inventory, group, play, role parameters, role defaults) - for the role's tasks run
    once; an omitted variable is left out. It is C(changed) when the host's address changes (a new reservation, a
    move to another static address, a release), from what its owner holds now.
  - With O(held), run once before, it reads what the owners of the play hold where the first host's request reserves,
    once for every host. With O(batch), run once after, it checks and groups the requests, makes one call of
    M(netpool.ipam.reservation) per group, and sets the index of what each host got and the role's facts.
  - The work is done by the action plugin, on the controller; this module only documents it. It is in the action
    group C(group/netpool.ipam.all), so that the store settings of C(module_defaults) reach it; the role's
    variables win over them.
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store
options:
  held:
    description: Read what the owners of the play hold (run once, before the requests).
    type: bool
    default: false
  batch:
    description: Reserve for the requests of the play and set the facts (run once, after the requests).
    type: bool
    default: false
attributes:
  check_mode:
    description: The request reads variables and the store only; the batch predicts, as M(netpool.ipam.reservation).
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
  description: The host's request (C(host), C(state), C(owner), C(pool), C(key), the store settings... and the
    gathered facts that name its MAC), registered as C(__reserve_request) where the worker cannot hand it to the
    batch (see the role's C(tasks/main.yml)).
  returned: on ansible-core 2.21, without O(held) or O(batch), where the worker does not share the role's hand-over
    file
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.netpool.ipam.plugins.module_utils._options import STORE_OPTIONS


def main():
    # The action plugin does the work, on the controller; the module itself is never sent to a host.
    argument_spec = dict(held=dict(type='bool', default=False), batch=dict(type='bool', default=False))
    argument_spec.update(STORE_OPTIONS)
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True)
    module.fail_json(msg='netpool.ipam.reserve_request runs on the controller (its action plugin), as part of '
                         'role netpool.ipam.reserve')


if __name__ == '__main__':
    main()
