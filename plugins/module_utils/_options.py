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

``option_errors`` is what both paths check before Ansible's own validation,
because Ansible's ``str`` type turns anything into a string: a list or a dict
given for a string option (or as an element of a list of strings) would
otherwise become the string ``"['a', 'b']"`` and the task would act on it.
It also refuses an empty string for the options that name something (``NAMES``):
an empty string is not "unset".
"""

import copy

from collections.abc import Mapping, Sequence, Set

from ansible.module_utils.common.parameters import env_fallback


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

_SUBNET = dict(
    cidr=dict(type='str', required=True),
    gateway=dict(type='str'),
    dns=dict(type='list', elements='str'),
    ranges=dict(type='list', elements='str'),
    exclude=dict(type='list', elements='str'),
)

#: the one-subnet shorthand of the pool module: these top-level options become subnets[0]
SHORTHAND = ('cidr', 'gateway', 'dns', 'ranges', 'exclude')

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
        mutually_exclusive=[('subnets', 'cidr'), ('subnets', 'parent'), ('cidr', 'parent')],
        required_together=[('parent', 'prefix_length')],
        required_by=dict((k, 'cidr') for k in SHORTHAND[1:]),
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
            family=dict(type='str', choices=['ipv4', 'ipv6']),
            metadata=dict(type='dict'),
            ttl=dict(type='str'),
            force=dict(type='bool', default=False),
            reassign=dict(type='bool', default=False),
            keep_owners=dict(type='list', elements='str'),
            state=_STATE,
        ),
        mutually_exclusive=[('owner', 'owners'), ('keep_owners', 'owner'), ('keep_owners', 'owners'),
                            ('keep_owners', 'key')],
        required_if=[('state', 'present', ('pool',)),
                     ('state', 'present', ('owner', 'owners'), True),
                     ('state', 'absent', ('owner', 'owners', 'keep_owners'), True)],
        required_by={'keep_owners': 'pool'},
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
            repair=dict(type='bool', default=False),
        ),
    ),
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
)


def module_kwargs(name):
    """The argument spec and its constraints for module ``name`` (a fresh copy)."""
    return copy.deepcopy(MODULES[name])


#: the options that name a namespace, pool, owner or key: an empty string is refused, not taken as unset
NAMES = ('name', 'pool', 'parent', 'owner', 'key', 'namespace')


def _container(value):
    """A list, tuple, set or dict (Ansible's lazy containers included), not a string."""
    if isinstance(value, (str, bytes, bytearray)):
        return False
    return isinstance(value, (Mapping, Sequence, Set))


def _kind(value):
    return 'dict' if isinstance(value, Mapping) else 'list'


def option_errors(argument_spec, params, context=''):
    """Messages for what Ansible's type conversion would not refuse in ``params`` (raw task arguments).

    A list or dict given for a ``str`` option, or as an element of a ``list`` of ``str``, would be turned into
    its ``repr``; numbers and booleans still become strings the usual way (``key: 1`` is ``'1'``). An empty
    string for one of ``NAMES`` is refused too. Sub-options (``subnets``) are checked the same way; values
    are never echoed (one could hold a secret). An empty list means nothing is wrong.
    """
    errors = []
    for option, spec in argument_spec.items():
        for name in [option] + list(spec.get('aliases') or ()):
            if name not in params or params[name] is None:
                continue
            value, where = params[name], "argument '%s'%s" % (name, context)
            kind, elements = spec.get('type') or 'str', spec.get('elements')
            if kind == 'str':
                if _container(value):
                    errors.append('%s must be a string (type str), got a %s.' % (where, _kind(value)))
                elif option in NAMES and isinstance(value, str) and not value.strip():
                    errors.append('%s is an empty string: give a non-empty string, or leave the option out '
                                  '(default(omit)) if it is optional.' % where)
            elif kind == 'list' and _container(value) and not isinstance(value, Mapping):
                for i, element in enumerate(value):
                    if elements == 'str' and _container(element):
                        errors.append('%s must be a list of strings (elements str), got a %s as element %d.'
                                      % (where, _kind(element), i + 1))
                    elif elements == 'dict' and spec.get('options') and isinstance(element, Mapping):
                        errors.extend(option_errors(spec['options'], element, " found in '%s[%d]'" % (name, i)))
            elif kind == 'dict' and spec.get('options') and isinstance(value, Mapping):
                errors.extend(option_errors(spec['options'], value, " found in '%s'" % name))
    return errors
