# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: address
short_description: The address an owner holds in a pool
version_added: 0.1.0
description:
  - Returns one item per pool term, the address that O(owner) holds under O(key) in that pool.
  - With O(allocate=true), reserves an address when there is none (idempotent, like
    M(netpool.ipam.reservation)), so an inventory can give every host an address.
  - Without it a missing reservation is an error that says how to create one.
  - The store is opened once per process, so templating the lookup once per host of a large inventory stays
    cheap.
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store.plugin
options:
  _terms:
    description: The names of the pools.
    type: list
    elements: str
    required: true
  owner:
    description:
      - The owner of the reservation, usually V({{ inventory_hostname }}). Required (a lookup without it fails
        with C(error invalid_argument)).
    type: str
  key:
    description:
      - Which address of the owner in the pool.
    type: str
    default: default
  allocate:
    description:
      - Reserve an address when the owner holds none in the pool under O(key).
      - This writes to the store even when the play runs in check mode.
    type: bool
    default: false
  format:
    description:
      - V(address) returns the address (V(10.0.0.10)), V(cidr) the address with its prefix length
        (V(10.0.0.10/24)), V(dict) the whole reservation (the fields of
        RV(netpool.ipam.reservation#module:reservation)).
    type: str
    choices: [address, cidr, dict]
    default: address
notes:
  - A failure raises an error whose message ends with C(error CODE) in parentheses, CODE being one of the stable codes of
    M(netpool.ipam.reservation) (for example C(pool_not_found), C(pool_exhausted), C(store_busy)), or C(not_reserved) for a missing
    reservation without O(allocate=true).
  - A relative O(store) path is relative to the directory C(ansible-playbook) or C(ansible-inventory) was started
    from.
seealso:
  - module: netpool.ipam.reservation
  - module: netpool.ipam.pool
"""

EXAMPLES = r"""
- name: The address web1 holds in the web pool
  ansible.builtin.debug:
    msg: "{{ lookup('netpool.ipam.address', 'web', owner='web1') }}"

- name: One address per pool, with prefix lengths
  ansible.builtin.debug:
    msg: "{{ query('netpool.ipam.address', 'web', 'storage', owner=inventory_hostname, format='cidr') }}"

# In an inventory (constructed plugin): every host gets an address of the web pool, reserved on first use.
# plugin: ansible.builtin.constructed
# compose:
#   ansible_host: lookup('netpool.ipam.address', 'web', owner=inventory_hostname, allocate=true)

- name: The gateway of the storage NIC
  ansible.builtin.set_fact:
    storage_gateway: "{{ lookup('netpool.ipam.address', 'storage', owner=inventory_hostname, key='eth1',
                         format='dict').gateway }}"
"""

RETURN = r"""
_raw:
  description:
    - One item per pool term, the address (O(format=address)), the address with its prefix length
      (O(format=cidr)), or the reservation dict (O(format=dict)).
  type: list
  elements: raw
"""

import os

from ansible.errors import AnsibleError
from ansible.plugins.lookup import LookupBase

from ansible_collections.netpool.ipam.plugins.module_utils._options import STORE_ENV, STORE_TOKEN_ENV
from ansible_collections.netpool.ipam.plugins.plugin_utils._adapter import LookupIpamError, lookup_call

STORE_OPTIONS = ('store', 'store_token', 'validate_certs', 'timeout', 'namespace')
OPTIONS = STORE_OPTIONS + ('allocate', 'format')

#: Resolved options by the arguments that are the same on every host of an inventory (all but owner and
#: key): Ansible's option resolution would otherwise cost more than the look-up itself. Per process.
_RESOLVED = {}
_PER_HOST = ('owner', 'key')


def _missing(pool, owner, key, namespace):
    return LookupIpamError(
        "lookup netpool.ipam.address: owner '%s' holds no address under key '%s' in pool '%s' (namespace '%s'). "
        "Reserve one with the netpool.ipam.reservation module (pool: %s, owner: %s, key: %s), or call the lookup "
        "with allocate=true." % (owner, key, pool, namespace, pool, owner, key), 'not_reserved')


class LookupModule(LookupBase):

    def _resolve(self, variables, kwargs):
        """The resolved options but owner and key (which differ per host and are plain strings)."""
        try:
            cache_key = (os.environ.get(STORE_ENV), os.environ.get(STORE_TOKEN_ENV),
                         frozenset((k, v) for k, v in kwargs.items() if k not in _PER_HOST))
            resolved = _RESOLVED.get(cache_key)
        except TypeError:   # an unhashable argument: resolve every time
            cache_key = resolved = None
        if resolved is None:
            # owner and key are checked by run() itself, the same way whether or not this is cached
            self.set_options(var_options=variables,
                             direct=dict((k, v) for k, v in kwargs.items() if k not in _PER_HOST))
            resolved = dict((name, self.get_option(name)) for name in OPTIONS)
            if cache_key is not None:
                _RESOLVED[cache_key] = resolved
        return resolved

    def run(self, terms, variables=None, **kwargs):
        options = self._resolve(variables, kwargs)
        params = dict((name, options[name]) for name in STORE_OPTIONS)
        owner, key, namespace = kwargs.get('owner'), kwargs.get('key', 'default'), params['namespace']
        allocate, form = options['allocate'], options['format']
        if not owner or not isinstance(owner, str) or not isinstance(key, str):
            raise AnsibleError('lookup netpool.ipam.address needs owner=... (a string, for example '
                               'owner=inventory_hostname) and, if given, key=... as a string (error invalid_argument)')

        def one(pool):
            def call(service):
                if allocate:
                    return service.reserve(pool, owner, key=key, namespace=namespace)['reservation']
                return service.get(pool, owner, key=key, namespace=namespace)

            reservation = lookup_call(params, call)
            if reservation is None:
                raise _missing(pool, owner, key, namespace)
            if form == 'dict':
                return reservation
            return reservation['address' if form == 'address' else 'cidr']

        return [one(pool) for pool in terms]
