# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: address
short_description: The address an owner holds in a pool
version_added: 1.0.0
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
  - netpool.ipam.probe
options:
  _terms:
    description:
      - The names of the pools, each a non-empty string.
      - A term that is a list of names is flattened (one level), so
        V(query('netpool.ipam.address', pools, owner=inventory_hostname)) with O(_terms) a list variable
        gives one item per pool, like V(query('netpool.ipam.address', 'web', 'storage', ...)). An empty list
        gives no item.
      - A dict, a list inside a list, a number or an empty string fails with C(error invalid_argument).
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
      - With O(family=dual), V(dict) returns a dict with the keys C(ipv4) and C(ipv6), each a reservation, and
        V(address) and V(cidr) a list of two, the IPv4 one first (V([10.0.0.10, 2001:db8::10])).
    type: str
    choices: [address, cidr, dict]
    default: address
  family:
    description:
      - V(ipv4) or V(ipv6) - the address of that family the owner holds under O(key) (with O(allocate=true), one of
        that family is reserved when missing). Not given - the one the owner holds (the IPv4 one where it holds one
        of each family).
      - V(dual) - both, the IPv4 and the IPv6 address (see O(format)); with O(allocate=true), what is missing is
        reserved as M(netpool.ipam.reservation) does with O(netpool.ipam.reservation#module:family=dual). Without
        it, an owner that holds only one of them fails with C(error not_reserved) naming the family missing.
    type: str
    choices: [ipv4, ipv6, dual]
notes:
  - A keyword that is not one of the options above (a typo such as V(alocate=true)), a list or dict given
    for a string option, a value that is not a boolean for O(allocate) or O(validate_certs), or a value that
    is not one of the choices fails with C(error invalid_argument).
  - A failure raises an error whose message ends with C(error CODE) in parentheses, CODE being one of the stable codes of
    M(netpool.ipam.reservation) (for example C(pool_not_found), C(pool_exhausted), C(store_busy)), or C(not_reserved) for a missing
    reservation without O(allocate=true).
  - A relative O(store) path is relative to the directory C(ansible-playbook) or C(ansible-inventory) was started
    from. Every error message ends by naming the store read (an absolute path, or the URL with its password
    hidden).
  - An unknown pool names the nearest existing pools (C(Did you mean 'web'?)); C(not_reserved) names the nearest key
    the owner holds in the pool, or, when it holds none there, the nearest owner.
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

- name: One address per pool of a list (a term that is a list of pool names is flattened)
  ansible.builtin.debug:
    msg: "{{ query('netpool.ipam.address', host_pools, owner=inventory_hostname) }}"
  vars:
    host_pools: [web, storage]

- name: Both addresses of a dual-stack host (reserved when missing), as a dict with ipv4 and ipv6
  ansible.builtin.set_fact:
    host_addresses: "{{ lookup('netpool.ipam.address', 'web', owner=inventory_hostname, family='dual',
                         allocate=true, format='dict') }}"
  # host_addresses.ipv4.address, host_addresses.ipv6.cidr ...

- name: A new address for web9 that no host answers from (ICMP echo), reserved on first use
  ansible.builtin.debug:
    msg: "{{ lookup('netpool.ipam.address', 'web', owner='web9', allocate=true, probe='icmp') }}"

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
    - With O(family=dual), each item is a list of two (the IPv4 one, then the IPv6 one), or with O(format=dict) a
      dict with C(ipv4) and C(ipv6).
  type: list
  elements: raw
"""

import os

from ansible.errors import AnsibleError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.lookup import LookupBase

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _secrets
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import (
    LOOKUP_OPTIONS, PROBE_OPTIONS, STORE_ENV, STORE_OPTIONS, STORE_TOKEN_ENV)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._requests import ReservationRequest
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._checks import option_errors
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import did_you_mean
from ansible_collections.netpool.ipam.plugins.plugin_utils._task._adapter import LookupIpamError, lookup_call, lookup_store

OPTIONS = tuple(STORE_OPTIONS) + ('allocate', 'format', 'family') + tuple(PROBE_OPTIONS)

#: Resolved options by the arguments that are the same on every host of an inventory (all but owner and
#: key): Ansible's option resolution would otherwise cost more than the look-up itself. Per process.
_RESOLVED = {}
_PER_HOST = ('owner', 'key')
_BOOLEANS = ('allocate', 'validate_certs')


def _invalid(msg):
    return LookupIpamError('lookup netpool.ipam.address: %s' % msg, 'invalid_argument')


def _check(direct):
    """Refuse what Ansible's plugin options would take silently: unknown keywords, a list or dict for a string,
    anything but a boolean for a boolean (Ansible reads V(maybe) or a list as false)."""
    unknown = sorted(set(direct) - set(LOOKUP_OPTIONS))
    if unknown:
        raise _invalid('unknown keyword(s) %s. Valid keywords: %s.'
                       % (', '.join(unknown), ', '.join(sorted(LOOKUP_OPTIONS))))
    errors = option_errors(LOOKUP_OPTIONS, direct)
    for name in _BOOLEANS:
        try:
            if direct.get(name) is not None:
                boolean(direct[name], strict=True)
        except TypeError:
            errors.append("argument '%s' must be a boolean (true or false)." % name)
    if errors:
        raise _invalid('; '.join(errors))


def _pools(terms):
    """The pool names: the terms, a term that is a list giving its items (flattened one level)."""
    pools = []
    for term in terms:
        for pool in term if isinstance(term, (list, tuple)) else (term,):
            if not isinstance(pool, str) or not pool.strip():
                if isinstance(pool, dict):
                    what = 'a dict'
                elif isinstance(pool, (list, tuple)):
                    what = 'a list inside a list (only one level is flattened)'
                elif isinstance(pool, str):
                    what = 'an empty string'
                else:
                    what = '%r (%s)' % (pool, type(pool).__name__)
                raise _invalid('each term must be the name of a pool (a non-empty string) or a list of names, '
                               'got %s.' % what)
            pools.append(pool)
    return pools


def _missing(pool, owner, key, namespace, held, store, family=None):
    """``not_reserved``; ``held`` are the (owner, key) pairs of the pool, for the nearest key of the owner (or, if
    the owner holds nothing there, the nearest owner): a misspelled key or owner is named. ``family``: the family
    asked for (``ipv4``, ``ipv6``), whose address is missing."""
    keys = [k for o, k in held if o == owner]
    if family is not None and key in keys:
        return LookupIpamError(
            "lookup netpool.ipam.address: owner '%s' holds no IPv%s address under key '%s' in pool '%s' (namespace "
            "'%s'). Add it with the netpool.ipam.reservation module (pool: %s, owner: %s, key: %s, family: dual), "
            "or call the lookup with allocate=true. (store: %s)"
            % (owner, family[3:], key, pool, namespace, pool, owner, key, store),
            'not_reserved')
    hint = did_you_mean(key, keys) if keys else did_you_mean(owner, [o for o, _k in held])
    if keys and not hint:
        hint = ' It holds key(s) %s there.' % ', '.join("'%s'" % k for k in sorted(keys)[:10])
    elif hint and not keys:
        hint = ' No owner of that name holds an address there.' + hint
    return LookupIpamError(
        "lookup netpool.ipam.address: owner '%s' holds no address under key '%s' in pool '%s' (namespace '%s')."
        "%s Reserve one with the netpool.ipam.reservation module (pool: %s, owner: %s, key: %s), or call the lookup "
        "with allocate=true. (store: %s)" % (owner, key, pool, namespace, hint, pool, owner, key, store),
        'not_reserved')


class LookupModule(LookupBase):

    def _resolve(self, variables, kwargs):
        """The resolved options but owner and key (which differ per host and are plain strings)."""
        try:
            cache_key = (os.environ.get(STORE_ENV), os.environ.get(STORE_TOKEN_ENV),
                         frozenset((k, type(v), v) for k, v in kwargs.items() if k not in _PER_HOST))
            resolved = _RESOLVED.get(cache_key)
        except TypeError:   # an unhashable argument: resolve every time
            cache_key = resolved = None
        if resolved is None:
            # owner and key are checked by run() itself, the same way whether or not this is cached
            direct = dict((k, v) for k, v in kwargs.items() if k not in _PER_HOST)
            _check(direct)    # raises: nothing is cached for arguments that are refused
            try:
                self.set_options(var_options=variables, direct=direct)
            except AnsibleError as e:    # a value Ansible refuses (format='yaml', timeout='soon')
                raise _invalid(_secrets.hide(str(e.message), _secrets.find(direct)))
            resolved = dict((name, self.get_option(name)) for name in OPTIONS)
            if cache_key is not None:
                _RESOLVED[cache_key] = resolved
        return resolved

    def run(self, terms, variables=None, **kwargs):
        options = self._resolve(variables, kwargs)
        params = dict((name, options[name]) for name in STORE_OPTIONS)
        owner, key, namespace = kwargs.get('owner'), kwargs.get('key', 'default'), params['namespace']
        allocate, form, family = options['allocate'], options['format'], options['family']
        if not isinstance(owner, str) or not isinstance(key, str) or not owner.strip() or not key.strip():
            raise LookupIpamError('lookup netpool.ipam.address needs owner=... (a non-empty string, for example '
                                  'owner=inventory_hostname) and, if given, key=... as a non-empty string',
                                  'invalid_argument')

        families = ('ipv4', 'ipv6') if family == 'dual' else (family,)

        def one(pool):
            def call(service):
                if allocate:
                    # the lookup's terms and options as netpool.ipam.reservation's: one request, parsed as the
                    # module's
                    result = service.reserve(ReservationRequest.from_options(dict(
                        pool=pool, owner=owner, key=key, namespace=namespace, family=family,
                        **dict((name, options[name]) for name in PROBE_OPTIONS))))
                    return (result['reservation'], result['reservation6']) if family == 'dual' \
                        else (result['reservation'],)
                return tuple(service.get(pool, owner, key=key, namespace=namespace, family=f) for f in families)

            doing = '%s the address of owner %r (key %r) in pool %r' % (
                'reserving' if allocate else 'looking up', owner, key, pool)
            reservations = lookup_call(params, call, doing)
            for f, reservation in zip(families, reservations):
                if reservation is None:
                    held = lookup_call(params, lambda service: [(r['owner'], r['key']) for r in service.info(
                        namespace, pool=pool)['reservations']], 'listing the reservations of pool %r' % (pool,))
                    raise _missing(pool, owner, key, namespace, held, lookup_store(params), f)
            if form == 'dict':
                return dict(zip(families, reservations)) if family == 'dual' else reservations[0]
            found = [r['address' if form == 'address' else 'cidr'] for r in reservations]
            return found if family == 'dual' else found[0]

        return [one(pool) for pool in _pools(terms)]
