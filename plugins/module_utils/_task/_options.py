# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The options of every netpool.ipam module, declared once.

This is a private module: it may change at any time.

``STORE_OPTIONS`` is the argument spec of the store options (documented by
the ``netpool.ipam.store`` doc fragment); ``MODULES`` holds, per module, the
keyword arguments of ``AnsibleModule`` / ``ArgumentSpecValidator``. The
module files (``AnsibleModule``) and the action plugins (which validate the
task's arguments on the controller) both read them from here, so a module's
options cannot differ between the two paths.

What both paths check before Ansible's own validation (a list given for a
string option, an empty name) is ``_checks.option_errors``.
"""

import copy

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _requests


def env_fallback(*names):
    """ansible-core's ``env_fallback`` (the value of the first of the environment variables ``names`` that is
    set), imported when a fallback is looked up: the Terraform provider reads ``STORE_OPTIONS`` for the names of
    the variables without ansible-core's module code, whose import would cost each of its starts about 20 ms of
    CPU."""
    from ansible.module_utils.common.parameters import env_fallback as fallback  # pylint: disable=import-outside-toplevel
    return fallback(*names)


STORE_ENV = 'NETPOOL_IPAM_STORE'
STORE_TOKEN_ENV = 'NETPOOL_IPAM_STORE_TOKEN'

#: the store options shared by every module (and, with ``env:`` entries, the lookup)
STORE_OPTIONS = dict(
    store=dict(type='str', default='ipam.sqlite', fallback=(env_fallback, [STORE_ENV])),
    store_token=dict(type='str', no_log=True, fallback=(env_fallback, [STORE_TOKEN_ENV])),
    validate_certs=dict(type='bool', default=True),
    timeout=dict(type='int', default=30),
    namespace=dict(type='str', default='default'),
)

_STATE = dict(type='str', default='present', choices=['present', 'absent'])

#: the probe options of the reservation module and the lookup (doc fragment ``netpool.ipam.probe``)
PROBE_OPTIONS = dict(
    probe=dict(type='str', default='none', choices=['none', 'icmp', 'arp']),
    probe_timeout=dict(type='int', default=300),
    probe_tries=dict(type='int', default=16),
)

_SUBNET = dict(
    cidr=dict(type='str', required=True),
    gateway=dict(type='str'),
    dns=dict(type='list', elements='str'),
    ranges=dict(type='list', elements='str'),
    exclude=dict(type='list', elements='str'),
)

#: the one-subnet shorthand of the pool module: these top-level options become subnets[0]
SHORTHAND = _requests.SHORTHAND

MODULES = {
    'pool': dict(
        argument_spec=dict(
            name=dict(type='str', required=True),
            state=_STATE,
            subnets=dict(type='list', elements='dict', options=_SUBNET),
            cidr=dict(type='str'),
            gateway=dict(type='str'),
            dns=dict(type='list', elements='str'),
            ranges=dict(type='list', elements='str'),
            exclude=dict(type='list', elements='str'),
            parent=dict(type='str'),
            prefix_length=dict(type='int'),
            strategy=dict(type='str', choices=['first', 'random']),
            reuse_delay=dict(type='str'),
            description=dict(type='str'),
            metadata=dict(type='dict'),
            force=dict(type='bool', default=False),
        ),
        mutually_exclusive=[('subnets', 'cidr'), ('subnets', 'parent'), ('cidr', 'parent'), ('subnets', 'ranges'),
                            ('prefix_length', 'ranges')],
        # parent needs prefix_length or ranges, and ranges need cidr or parent: ``_checks.pool_arguments``
        required_by=dict((k, 'cidr') for k in SHORTHAND[1:] if k != 'ranges'),
    ),
    'range': dict(
        argument_spec=dict(
            pool=dict(type='str', required=True),
            range=dict(type='list', elements='str', required=True, aliases=['ranges']),
            kind=dict(type='str', default='allocatable', choices=['allocatable', 'excluded']),
            state=_STATE,
            force=dict(type='bool', default=False),
        ),
    ),
    'reservation': dict(
        argument_spec=dict(
            pool=dict(type='str'),
            owner=dict(type='str'),
            owners=dict(type='list', elements='raw'),
            key=dict(type='str', no_log=False),
            address=dict(type='str'),
            family=dict(type='str', choices=['ipv4', 'ipv6', 'dual']),
            align_with=dict(type='str'),
            metadata=dict(type='dict'),
            ttl=dict(type='str'),
            force=dict(type='bool', default=False),
            reassign=dict(type='bool', default=False),
            keep_owners=dict(type='list', elements='str'),
            state=_STATE,
            **PROBE_OPTIONS
        ),
        mutually_exclusive=[('owner', 'owners'), ('keep_owners', 'owner'), ('keep_owners', 'owners'),
                            ('keep_owners', 'key')],
        required_if=[('state', 'present', ('pool',)),
                     ('state', 'present', ('owner', 'owners'), True),
                     ('state', 'absent', ('owner', 'owners', 'keep_owners'), True)],
        required_by={'keep_owners': 'pool'},
    ),
    'adopt': dict(
        argument_spec=dict(
            entries=dict(type='list', elements='raw'),
            csv=dict(type='path'),
            leases=dict(type='path'),
            leases_format=dict(type='str', choices=['kea', 'dnsmasq']),
            pool=dict(type='str'),
            key=dict(type='str', no_log=False),
            on_conflict=dict(type='str', default='fail', choices=['fail', 'skip']),
        ),
        mutually_exclusive=[('entries', 'csv', 'leases')],
        required_one_of=[('entries', 'csv', 'leases')],
        required_together=[('leases', 'leases_format')],
    ),
    'info': dict(
        argument_spec=dict(
            pool=dict(type='str'),
            owner=dict(type='str'),
            key=dict(type='str', no_log=False),
            address=dict(type='str'),
            history=dict(type='bool', default=False),
            map=dict(type='bool', default=False),
            verify=dict(type='bool', default=False),
            # an info module changes nothing: repairing is netpool.ipam.repair's (this one kept for one release)
            repair=dict(type='bool', default=False, removed_in_version='2.0.0',
                        removed_from_collection='netpool.ipam'),
        ),
    ),
    'repair': dict(argument_spec=dict()),
}

for _spec in MODULES.values():
    _spec['argument_spec'].update(STORE_OPTIONS)

#: the keyword arguments of the lookup netpool.ipam.address. Ansible resolves them from the lookup's
#: DOCUMENTATION (and the store.plugin doc fragment); this spec names them and their types for the checks
#: Ansible's plugin options do not make (unknown keywords, ``option_errors``).
LOOKUP_OPTIONS = dict(
    STORE_OPTIONS,
    owner=dict(type='str'),
    key=dict(type='str', default='default'),
    allocate=dict(type='bool', default=False),
    format=dict(type='str', default='address', choices=['address', 'cidr', 'dict']),
    family=dict(type='str', choices=['ipv4', 'ipv6', 'dual']),
    **PROBE_OPTIONS
)


def module_kwargs(name):
    """The argument spec and its constraints for module ``name`` (a fresh copy)."""
    return copy.deepcopy(MODULES[name])
