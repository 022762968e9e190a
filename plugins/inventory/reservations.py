# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: reservations
short_description: The owners of reservations as an inventory
version_added: 1.0.0
description:
  - An inventory source whose hosts are the owners of the reservations of one namespace of a netpool.ipam store,
    each with C(ansible_host) set to the address of one of its reservations, and every reservation it holds as a
    host variable. What Terraform (or a play, or the lookup) reserved for a machine appears in Ansible's
    inventory with its address.
  - "The source is a YAML file whose name ends with C(netpool.yml) or C(netpool.yaml) (V(netpool.yml),
    V(prod.netpool.yml)) and that says V(plugin: netpool.ipam.reservations)."
  - "Every host gets these variables: C(netpool_reservations), the list of the reservations it holds that pass
    O(pools) and O(keys), each a dict with the fields that M(netpool.ipam.reservation) returns (C(address),
    C(cidr), C(prefix_length), C(netmask), C(network), C(gateway), C(dns), C(pool), C(namespace), C(owner),
    C(key), C(static), C(metadata), C(created_at), C(updated_at), C(expires_at)), sorted by pool (in the order
    of O(pools), else by name), then key, then IPv4 before IPv6; and C(ansible_host) (below)."
  - C(ansible_host) is the address of the host's reservation under O(address_key). When several pools hold one
    for the host, the first pool wins (in the order of O(pools), else by name), and IPv4 before IPv6 within a
    pool. A host that holds no reservation under O(address_key) is still listed, with its reservations, but
    without C(ansible_host) (Ansible then connects to it by its name); O(compose) can
    set C(ansible_host) for such hosts, and a C(compose) entry for C(ansible_host) always wins.
  - Every pool (of O(pools), or every pool of the namespace) is a group, named O(pool_group_prefix) followed by
    the pool's name with every character not valid in a variable name replaced by C(_) (pool V(web-dmz) is group
    V(web_dmz)); a host is in the group of each pool where it holds a reservation that passes O(keys). A pool
    whose hosts are filtered out is an empty group.
  - The whole namespace is read in one read transaction with two questions to the store (its pools, then its
    reservations), whatever the number of hosts; nothing is written. An expired lease is not listed.
  - A SQLite or JSON store file that does not exist fails with C(error store_unavailable) naming its path (the
    inventory never creates a store, and an empty inventory would hide a wrong path). A PostgreSQL database
    without tables reads as empty.
  - Values read from the store are not templated (Ansible treats them as untrusted data).
author:
  - netpool.ipam engineers (@netpool)
extends_documentation_fragment:
  - netpool.ipam.store.plugin
  - ansible.builtin.constructed
  - ansible.builtin.inventory_cache
options:
  plugin:
    description:
      - The name of this plugin; it makes the file an inventory source of it.
    type: str
    required: true
    choices: [netpool.ipam.reservations]
  pools:
    description:
      - The pools whose reservations make hosts, in the order that decides which pool's address is C(ansible_host).
      - Not given, every pool of the namespace, by name. A pool that does not exist fails with
        C(error pool_not_found).
    type: list
    elements: str
  keys:
    description:
      - The keys of the reservations kept (V(default), V(eth1), ...). Not given, every key.
      - An owner none of whose reservations is kept is not a host.
    type: list
    elements: str
  address_key:
    description:
      - The key of the reservation whose address is the host's C(ansible_host).
    type: str
    default: default
  pool_group_prefix:
    description:
      - A prefix of the group of each pool (V(pool_) makes pool V(web) the group V(pool_web)), to keep them apart
        from other groups of the inventory.
    type: str
    default: ''
notes:
  - A failure (a store that cannot be read, a pool that does not exist, a bad option) is an error whose message
    ends with C(error CODE) in parentheses, CODE being one of the stable codes of M(netpool.ipam.reservation)
    (for example C(pool_not_found), C(store_unavailable), C(store_busy), C(store_version), C(invalid_argument)).
    The store token and a password in the store URL never appear in it. C(ansible-inventory) reports it as a
    source it could not parse; set E(ANSIBLE_INVENTORY_UNPARSED_FAILED=true) to make that fatal.
  - A relative O(store) path is relative to the directory C(ansible-inventory) or C(ansible-playbook) was started
    from, not to the inventory file.
  - O(store) and O(store_token) may be vaulted in the source file (C(!vault |)); the token is better left to
    E(NETPOOL_IPAM_STORE_TOKEN).
  - With O(cache=true), the hosts are read from the inventory cache while it is valid (O(cache_timeout)); the
    store is not read then. C(ansible-inventory --flush-cache) reads the store again.
  - The cache is kept per inventory source, store, O(namespace), O(pools), O(keys) and O(address_key); another
    store (O(store) or E(NETPOOL_IPAM_STORE)) or another value of these options reads the store, never the
    hosts cached for the others. Its key is a digest of them (the store's URL with its password masked); no
    password or token is kept in the cache.
seealso:
  - module: netpool.ipam.reservation
  - plugin: netpool.ipam.address
    plugin_type: lookup
"""

EXAMPLES = r"""
---
# netpool.yml: every owner of a reservation of the default namespace of ./ipam.sqlite
plugin: netpool.ipam.reservations

---
# prod.netpool.yml: the web and db pools of the prod namespace on PostgreSQL (the password from
# NETPOOL_IPAM_STORE_TOKEN), the address of key eth0 as ansible_host, groups by the role in the metadata
plugin: netpool.ipam.reservations
store: postgresql://ipam@db.example.com/ipam
namespace: prod
pools: [web, db]
address_key: eth0
pool_group_prefix: pool_
keyed_groups:
  - key: netpool_reservations | map(attribute='metadata.role', default='none')
    prefix: role
compose:
  ansible_user: "'admin'"
groups:
  static: netpool_reservations | selectattr('static') | length > 0

---
# vms.netpool.yml: what Terraform reserved (store from NETPOOL_IPAM_STORE), cached for an hour
plugin: netpool.ipam.reservations
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/netpool-inventory
cache_timeout: 3600

---
# awx.netpool.yml: an inventory source of AWX or Automation Controller, sourced from a project. The store and
# its token come from a credential whose type injects them as environment variables (docs/awx.md):
#   inputs:     fields: [{id: store, type: string, label: Store URL},
#                        {id: store_token, type: string, label: Store token, secret: true}]
#               required: [store]
#   injectors:  env: {NETPOOL_IPAM_STORE: '{{ store }}', NETPOOL_IPAM_STORE_TOKEN: '{{ store_token }}'}
# Use a PostgreSQL or NetBox store there: a file store (ipam.sqlite by default) inside the job's execution
# environment is lost when the job ends.
plugin: netpool.ipam.reservations
namespace: prod

# A play on the pool's group: ansible-playbook -i netpool.yml site.yml
# - hosts: web
#   tasks:
#     - ansible.builtin.debug:
#         msg: "{{ inventory_hostname }} is {{ ansible_host }}, in {{ netpool_reservations | map(attribute='pool') }}"
"""

import hashlib
import json

from ansible.inventory.group import to_safe_group_name
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._checks import option_errors
from ansible_collections.netpool.ipam.plugins.module_utils._task._options import STORE_OPTIONS
from ansible_collections.netpool.ipam.plugins.plugin_utils._task._adapter import LookupIpamError, lookup_store, plugin_call

NAME = 'netpool.ipam.reservations'

#: the options of this plugin that option_errors checks (Ansible's own checks turn a list into a string)
CHECKED = dict(
    STORE_OPTIONS,
    pools=dict(type='list', elements='str'),
    keys=dict(type='list', elements='str'),
    address_key=dict(type='str'),
    pool_group_prefix=dict(type='str'),
)


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = NAME

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(('netpool.yml', 'netpool.yaml'))

    def _invalid(self, path, msg):
        return LookupIpamError('inventory %s (%s): %s' % (NAME, path, msg), 'invalid_argument')

    def _params(self):
        """The store options, a vaulted value (!vault) decrypted."""
        params = dict((name, self.get_option(name)) for name in STORE_OPTIONS)
        for name in ('store', 'store_token'):
            if params[name] is not None:
                params[name] = str(params[name])
        return params

    def _cache_key(self, path, params):
        """The inventory cache key of source ``path``: Ansible's key of the path, and a digest of what decides the
        hosts: the store (as messages name it: an absolute path, a URL with its passwords masked; never the
        token), the namespace, pools, keys and the address key. Another store or namespace, or other filters,
        never get the hosts cached for the first."""
        read = [lookup_store(params), params['namespace'], self.get_option('pools'),
                self.get_option('keys'), self.get_option('address_key')]
        digest = hashlib.sha256(json.dumps(read, sort_keys=True).encode('utf-8')).hexdigest()[:16]
        return '%s_%s' % (self.get_cache_key(path), digest)

    def _read(self, path, params):
        """``{'pools': [...], 'reservations': [...]}`` from the store (one read transaction); a store file that
        does not exist is ``store_unavailable`` (a reader never creates a store)."""
        pools, keys = self.get_option('pools'), self.get_option('keys')
        doing = 'reading the reservations of namespace %r' % (params['namespace'],)
        return plugin_call(params, lambda service: service.reservations(params['namespace'], pools, keys), doing,
                           'inventory %s (%s)' % (NAME, path), 'reservations inventory', must_exist=True)

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache=cache)
        config = self._read_config_data(path)
        errors = option_errors(CHECKED, config or {})
        for name in ('pools', 'keys'):
            value = (config or {}).get(name)
            if isinstance(value, dict):
                errors.append("argument '%s' must be a list of strings, got a dict." % name)
            elif isinstance(value, list):
                errors.extend("argument '%s' has an empty string as element %d." % (name, i + 1)
                              for i, v in enumerate(value) if isinstance(v, str) and not v.strip())
        if errors:
            raise self._invalid(path, '; '.join(errors))

        params = self._params()
        cache_key = self._cache_key(path, params)
        use_cache = self.get_option('cache') and cache
        update_cache = self.get_option('cache') and not cache
        data = None
        if use_cache:
            try:
                data = self._cache[cache_key]
            except KeyError:
                update_cache = True
        if data is None:
            data = self._read(path, params)
        if update_cache:
            self._cache[cache_key] = data
        self._populate(data)

    def _populate(self, data):
        prefix = self.get_option('pool_group_prefix') or ''
        address_key = self.get_option('address_key')
        strict = self.get_option('strict')
        compose, groups, keyed_groups = (self.get_option(name) for name in ('compose', 'groups', 'keyed_groups'))
        inventory = self.inventory

        group_of = {}
        for pool in data['pools']:
            group_of[pool] = inventory.add_group(to_safe_group_name(prefix + pool, force=True, silent=True))

        held = {}
        for r in data['reservations']:
            held.setdefault(r['owner'], []).append(r)
        for owner, reservations in held.items():
            inventory.add_host(owner)
            for group in sorted(set(group_of[r['pool']] for r in reservations)):
                inventory.add_child(group, owner)
            host_vars = {'netpool_reservations': reservations}
            chosen = next((r for r in reservations if r['key'] == address_key), None)
            if chosen is not None:
                host_vars['ansible_host'] = chosen['address']
            for name, value in host_vars.items():
                inventory.set_variable(owner, name, value)
            self._set_composite_vars(compose, host_vars, owner, strict=strict)
            self._add_host_to_composed_groups(groups, host_vars, owner, strict=strict)
            self._add_host_to_keyed_groups(keyed_groups, host_vars, owner, strict=strict)
