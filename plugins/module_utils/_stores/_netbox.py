# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store: this collection's pools and reservations kept in a NetBox 4.x (``requests``).

This is a private module: it may change at any time. The mapping (docs/stores.md):

- a namespace is a VRF of that name (``default`` is the global table); a VRF is created, with
  ``enforce_unique``, by the first change in its namespace;
- a pool's subnet is a prefix tagged ``netpool`` with the custom fields ``netpool_pool`` (the pool's name)
  and ``netpool`` (JSON: the pool's settings, the subnet's gateway, dns, ranges and exclusions, its order);
- what a subnet may hand out (its ranges less exclusions, the gateway, child pools and what an ancestor
  withholds: ``_tree``) is a set of IP ranges tagged ``netpool``, derived again whenever the shape of the pool
  or of a pool it is carved from changes;
- a reservation is an IP address with status ``active`` and the custom fields ``netpool_claim`` (unique:
  ``namespace/pool/owner/key``, each part percent-encoded), ``netpool_pool``, ``netpool_owner``,
  ``netpool_expires`` (a lease's end, a datetime) and ``netpool`` (JSON: key, static, metadata, times); its
  ``dns_name`` is the owner where the owner is a DNS name;
- an address resting under a reuse delay is an IP address with status ``deprecated``, ``netpool_pool`` and
  ``netpool_expires`` set to the end of the rest;
- history is NetBox's own change log: every change this store makes carries a changelog message
  ``netpool: <action> ...``, and ``find_history`` reads those changes back.

Free space is NetBox's: a dynamic reservation is one ``POST .../ip-ranges/{id}/available-ips/`` carrying the
claim, atomic in NetBox (its advisory lock, and the claim's uniqueness: a second request for the same
reservation is refused and adopts the first one's address). NetBox has no transactions across requests:
writes are kept until the transaction commits and then sent in order; an allocation, which must be sent to
learn its address, is deleted again if the transaction fails. Check mode sends no write at all: an
allocation then asks NetBox which address it would hand out (``predicted``).

What NetBox cannot hold faithfully is ``unsupported``: the ``random`` strategy (NetBox hands out the first
available address of a range).
"""

import binascii
import contextlib
import functools
import json
import os
import re
import time

from urllib.parse import quote, unquote, urlsplit, urlunsplit

try:
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry
except ImportError:  # pragma: no cover - exercised by the missing-library test
    requests = None

from ansible_collections.netpool.ipam.plugins.module_utils import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._errors import (
    AddressInUse, InvalidArgument, StoreBusy, StoreUnavailable, Unsupported, missing_library)
from ansible_collections.netpool.ipam.plugins.module_utils._model import Pool, Reservation
from ansible_collections.netpool.ipam.plugins.module_utils._secrets import redact
from ansible_collections.netpool.ipam.plugins.module_utils._freespace._interface import FreeSpace
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import Store
from ansible_collections.netpool.ipam.plugins.module_utils._tree import Tree


TAG = 'netpool'
#: custom fields this store keeps, created on first use: name -> (type, object types, extra settings)
FIELDS = {
    'netpool_pool': ('text', ['ipam.prefix', 'ipam.iprange', 'ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool_claim': ('text', ['ipam.ipaddress'], {'filter_logic': 'exact', 'unique': True}),
    'netpool_owner': ('text', ['ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool_expires': ('datetime', ['ipam.ipaddress'], {'filter_logic': 'exact'}),
    'netpool': ('json', ['ipam.prefix', 'ipam.ipaddress'], {'filter_logic': 'disabled'}),
}
PAGE = 1000
#: a reservation by its claim and its pool's prefixes, in one GraphQL request
_READ_WITH_POOL = ' '.join('''
query ($claim: String!, $pool: String!) {
  a: ip_address_list(filters: {custom_field_data: {path: "netpool_claim", lookup: {string_lookup: {exact: $claim}}}}) {
    id address status custom_field_data vrf { id name } }
  p: prefix_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {exact: $pool}}}}) {
    id prefix custom_field_data vrf { id name } tags { slug } } }'''.split())
#: what a change of a pool's reservations reads, in one GraphQL request (``NetboxStore.expect``): the reservations
#: of its claims, the prefixes of every pool (the pool's family), the pool's IP ranges, and the IP addresses whose
#: netpool_expires is due (leases that ran out, rests that are over)
_READ_FOR_CHANGE = ' '.join('''
query ($claims: String!, $pool: String!, $from: String!, $to: String!) {
  a: ip_address_list(filters: {custom_field_data: {path: "netpool_claim", lookup: {string_lookup: {regex: $claims}}}}) {
    id address status custom_field_data vrf { id name } }
  p: prefix_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {starts_with: ""}}}}) {
    id prefix custom_field_data vrf { id name } tags { slug } }
  r: ip_range_list(filters: {custom_field_data: {path: "netpool_pool", lookup: {string_lookup: {exact: $pool}}}}) {
    id start_address end_address custom_field_data vrf { id name } tags { slug } }
  d: ip_address_list(filters: {custom_field_data: {path: "netpool_expires", lookup: {datetime_lookup: {range: {
    start: $from, end: $to}}}}}) {
    id address status custom_field_data vrf { id name } } }'''.split())
#: how far past the wall clock ``expect`` reads what is due (the service's clock runs a moment later)
_DUE_MARGIN = 300
#: the token of a history entry in a changelog message
_TOKEN = re.compile(r'^[0-9a-f]{12}$')
#: the most addresses a NetBox IP range holds
RANGE_LIMIT = 2 ** 32 - 1
_DNS_NAME = re.compile(r'^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}'
                       r'[A-Za-z0-9])?)*$')


def claim(namespace, pool, owner, key):
    """The unique claim of a reservation: its identity, each part percent-encoded, joined by ``/``."""
    return '/'.join(quote(part, safe='') for part in (namespace, pool, owner, key))


def _netbox_time(stamp):
    """An ISO time of the service (``...Z``) as NetBox takes a datetime custom field."""
    return None if stamp is None else stamp.replace('Z', '+00:00')


def _expiring(stamp):
    """List parameters selecting IP addresses whose ``netpool_expires`` is at or before ``stamp`` (NetBox's
    ``__lte`` alone also matches addresses without one)."""
    return {'cf_netpool_expires__lte': _netbox_time(stamp), 'cf_netpool_expires__empty': 'false'}


def _cidr(version, n, prefix_length):
    return '%s/%d' % (iv.to_str(version, n), prefix_length)


def _host(address):
    """``(version, int)`` of a NetBox address ``a.b.c.d/len``."""
    parsed = iv.parse_address(address.split('/')[0])
    return parsed.version, int(parsed)


class _Transaction(object):
    def __init__(self, write, commit):
        self.write, self.commit = write, commit
        self.pools = {}             # (namespace, name) -> Pool or None (deleted)
        self.reservations = {}      # ident -> Reservation or None (deleted), written in this transaction
        self.ops = []               # writes to send at commit, in order: [callable, message]
        self.last = []              # writes sent after those (IP ranges made: NetBox refuses overlapping ones)
        self.unnamed = []           # writes waiting for the history entry that names them (their message)
        self.undo = []              # how to undo what this transaction sent, in order: ('delete', URL, token) for
        #                             what it created, ('restore', callable) for what it deleted or changed
        self.freed = set()          # (version, address) of IP addresses the writes delete
        self.predicted = set()      # (version, address) check mode said it would hand out
        self.rebuilt = {}           # (namespace, pool) -> (pool, the IP ranges it should have): made last
        # reads kept for the transaction (NetBox holds no lock: re-reading would not make them any truer)
        self.listed = {}            # namespace -> {name: Pool} of its prefixes
        self.claims = {}            # claim -> IP addresses holding it
        self.due = {}               # (namespace, time) -> IP addresses whose netpool_expires is at or before it
        self.read = {}              # namespace -> (bound, IP addresses due by then); pool -> ranges: ``expect``
        self.ranges = {}            # (namespace, pool) -> the pool's IP ranges as NetBox holds them


class NetboxStore(Store):
    """Pools and reservations in NetBox's IPAM, over its REST API."""

    kind = 'netbox'

    def __init__(self, spec, timeout=30, validate_certs=True, token=None, create=True):
        if requests is None:
            raise missing_library('requests', 'the NetBox store')
        parts = urlsplit(spec)
        scheme = parts.scheme.split('+', 1)[1]
        if not parts.hostname:
            raise InvalidArgument("store '%s' names no NetBox host: write netbox+https://netbox.example.com."
                                  % redact(spec))
        if parts.username or parts.password:
            raise InvalidArgument('Give the NetBox API token in store_token, not in the store URL.')
        if not token:
            raise InvalidArgument('The NetBox store needs an API token: set store_token (or NETPOOL_IPAM_STORE_TOKEN) '
                                  'to a NetBox API token with write permission on IPAM and extras.')
        path = parts.path.rstrip('/')
        if path.endswith('/api'):
            path = path[:-4]
        self.base = urlunsplit((scheme, parts.netloc, path + '/api', '', ''))
        self._graphql = urlunsplit((scheme, parts.netloc, path + '/graphql/', '', ''))     # None: not to be used
        self.url = urlunsplit((parts.scheme, parts.netloc, path, '', ''))
        self.timeout = timeout
        self.create = create
        self._secret = token
        self._session = requests.Session()
        self._session.verify = bool(validate_certs)
        self._session.headers.update({
            'Authorization': ('Bearer %s' if token.startswith('nbt_') else 'Token %s') % token,
            'Accept': 'application/json', 'Content-Type': 'application/json'})
        # Reads, updates and deletes are retried on 429/5xx and lost connections; a POST is not (the claim
        # makes a repeated reservation safe, and it is resolved by reading, not by sending it twice).
        retry = Retry(total=3, connect=3, read=2, backoff_factor=0.3, status_forcelist=(429, 502, 503, 504),
                      allowed_methods=frozenset(('GET', 'PATCH', 'DELETE')), raise_on_status=False,
                      respect_retry_after_header=True)
        self._session.mount('http://', HTTPAdapter(max_retries=retry))
        self._session.mount('https://', HTTPAdapter(max_retries=retry))
        self._vrfs = {'default': None}     # namespace -> VRF id (None: the global table)
        self._schema_ready = False
        self._tx = None
        self._free = None

    # -- HTTP -----------------------------------------------------------
    def _request(self, method, path, params=None, body=None, ok=(200, 201, 204)):
        try:
            return self._send_request(method, path, params, body, ok)
        except _Refused as e:
            missing = 'custom field' in e.text.lower() or 'tag' in e.text or 'netpool' in e.text
            if self._schema_ready or method == 'GET' or '/extras/' in path or not missing:
                raise
        self._ensure_schema()       # the first change on this NetBox: make the custom fields and the tag
        return self._send_request(method, path, params, body, ok)

    def _send_request(self, method, path, params, body, ok):
        url = path if path.startswith('http') else self.base + path
        try:
            response = self._session.request(method, url, params=params,
                                             data=None if body is None else json.dumps(body),
                                             timeout=(min(self.timeout, 10), self.timeout))
        except requests.exceptions.SSLError as e:
            raise StoreUnavailable('Cannot verify the TLS certificate of NetBox at %s (%s). Install its CA, or set '
                                   'validate_certs: false for a test instance.' % (self.url, _first_line(e)))
        except requests.exceptions.Timeout:
            raise StoreBusy('NetBox at %s did not answer %s %s within %s seconds. Raise timeout, or check the '
                            'server.' % (self.url, method, _path(url), self.timeout))
        except requests.exceptions.RequestException as e:
            raise StoreUnavailable('Cannot reach NetBox at %s (%s). Check the store URL and that NetBox is running.'
                                   % (self.url, _first_line(e)))
        if response.status_code not in ok:
            self._refuse(method, url, response)
        if method == 'POST' and self._tx is not None and response.status_code == 201 and '/ipam/' in url \
                and '/ipam/vrfs/' not in url:
            made = response.json()
            first = body[0] if isinstance(body, list) and body else body
            token = ((first or {}).get('changelog_message') or '').split(' ')[1:2]
            self._tx.undo += [('delete', obj['url'], token) for obj in (made if isinstance(made, list) else [made])]
        return response

    def _refuse(self, method, url, response):
        where = '%s %s' % (method, _path(url))
        try:
            detail = response.json()
        except ValueError:
            if response.status_code < 500:
                raise StoreUnavailable('%s is not a NetBox API: %s answered %d with a page, not JSON. Check the store '
                                       'URL (netbox+https://HOST, with NetBox\'s base path if it has one).'
                                       % (self.url, where, response.status_code))
            detail = response.text[:300]
        if isinstance(detail, dict) and set(detail) == set(['detail']):
            detail = detail['detail']
        text = json.dumps(detail) if not isinstance(detail, str) else detail
        text = text.replace(self._secret, '********')
        if response.status_code in (401, 403):
            if 'permission' in text.lower():
                raise StoreUnavailable('NetBox at %s refused %s: %s The token needs write permission on IPAM '
                                       '(prefixes, IP ranges, IP addresses, VRFs) and, the first time, on extras '
                                       '(custom fields and tags).' % (self.url, where, text))
            raise StoreUnavailable('NetBox at %s refused the API token (%s): %s Check store_token.'
                                   % (self.url, where, text))
        if response.status_code in (429,) or response.status_code >= 500:
            raise StoreUnavailable('NetBox at %s failed %s with %d after retries: %s'
                                   % (self.url, where, response.status_code, text))
        raise _Refused(response.status_code, where, text)

    def _get(self, path, params=None):
        return self._request('GET', path, params=params).json()

    def _all(self, path, params=None):
        """Every object of a list, page after page."""
        params = dict(params or {}, limit=PAGE)
        page = self._get(path, params)
        found = list(page['results'])
        while page.get('next'):
            page = self._get(page['next'])
            found += page['results']
        return found

    # -- transactions ---------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        if self._tx is not None:
            raise RuntimeError('NetBox store transactions do not nest')
        self._tx = tx = _Transaction(write, commit)
        try:
            yield self
            if write and commit:
                self._send(tx)
        except BaseException:
            self._undo(tx)
            raise
        finally:
            self._tx = None

    def _send(self, tx):
        """Send the writes kept so far, each with the changelog message of its history entry."""
        ops, tx.ops, last, tx.last, tx.unnamed = tx.ops, [], tx.last, [], []
        for op in ops + last:
            op[0](op[1] or 'netpool: change')
        tx.freed.clear()

    def _undo(self, tx):
        """Undo, newest first, what a transaction that failed sent (an allocation, the writes sent before it, or the
        first writes of a commit that failed part way): delete what it created, make again what it deleted, change
        back what it changed. A reservation made again is the same reservation (its claim), at the same address."""
        for entry in reversed(list(tx.undo)):
            message = ' '.join(['netpool: undo'] + entry[-1])
            with contextlib.suppress(StoreUnavailable, StoreBusy):
                if entry[0] == 'delete':
                    self._request('DELETE', entry[1], body={'changelog_message': message}, ok=(204, 404))
                else:
                    entry[1](message)

    def _undoable(self, message, restore):
        """What a sent write that deleted or changed something needs if the transaction fails: ``restore``."""
        self._tx.undo.append(('restore', restore, message.split(' ')[1:2]))

    def _later(self, op, last=False, frees=None):
        """Keep a write until the transaction commits (``last``: after the others); ``frees``: the (version,
        address) of the IP address it deletes."""
        tx = self._tx
        kept = [op, None]
        (tx.last if last else tx.ops).append(kept)
        tx.unnamed.append(kept)
        if frees is not None:
            tx.freed.add(frees)

    def lock_pool(self, namespace, name):
        """Nothing: NetBox has no lock a client can hold. Its allocation is atomic, and the claim unique."""

    def lock_namespace(self, namespace):
        """Nothing (see ``lock_pool``)."""

    def close(self):
        self._session.close()

    def free_space(self):
        if self._free is None:
            self._free = NetboxFreeSpace(self)
        return self._free

    # -- what this store keeps in NetBox ---------------------------------
    def _ensure_schema(self):
        """Create the custom fields and tag this store uses, once per process, when a change needs them."""
        if self._schema_ready:
            return
        have = set(f['name'] for f in self._all('/extras/custom-fields/', {'name__isw': 'netpool'}))
        for name, (kind, types, extra) in sorted(FIELDS.items()):
            if name not in have:
                body = dict(extra, name=name, type=kind, object_types=types, label=name,
                            description='netpool.ipam (do not edit by hand)', ui_editable='hidden')
                self._create('/extras/custom-fields/', body, 'the custom field %s' % name)
        if not self._get('/extras/tags/', {'slug': TAG})['results']:
            self._create('/extras/tags/', {'name': TAG, 'slug': TAG, 'description': 'managed by netpool.ipam'},
                         'the tag %s' % TAG)
        self._schema_ready = True

    def _create(self, path, body, what):
        try:
            self._request('POST', path, body=body)
        except StoreUnavailable as e:
            if 'permission' not in str(e):
                raise
            raise StoreUnavailable('The NetBox store needs %s, which does not exist, and the token may not create it. '
                                   'Create it once with a token that may (%s %s), or let an administrator create '
                                   'it; docs/stores.md lists the custom fields and the tag.' % (what, path,
                                                                                                json.dumps(body)))

    def _vrf(self, namespace, make=False):
        """The VRF id of a namespace (None: the global table); ``False`` if it has none and ``make`` is off."""
        if namespace in self._vrfs:
            return self._vrfs[namespace]
        found = [v for v in self._get('/ipam/vrfs/', {'name': namespace, 'limit': 10})['results']
                 if v['name'] == namespace]
        if found:
            self._vrfs[namespace] = found[0]['id']
        elif make:
            made = self._request('POST', '/ipam/vrfs/', body={
                'name': namespace, 'enforce_unique': True, 'description': 'netpool.ipam namespace',
                'tags': [{'slug': TAG}]}).json()
            self._vrfs[namespace] = made['id']
        else:
            return False
        return self._vrfs[namespace]

    def _in(self, namespace, params=None):
        """List parameters selecting the namespace's VRF; None if the namespace has none yet."""
        vrf = self._vrf(namespace)
        if vrf is False:
            return None
        return dict(params or {}, vrf_id='null' if vrf is None else vrf)

    # -- pools ----------------------------------------------------------
    def _prefixes(self, namespace, name=None):
        params = self._in(namespace, {'tag': TAG})
        if params is None:
            return []
        if name is not None:
            params['cf_netpool_pool'] = name
        try:
            found = self._all('/ipam/prefixes/', params)
        except _Refused:
            return []       # no tag netpool yet: nothing of this collection's is here
        return [p for p in found if (p['custom_fields'] or {}).get('netpool_pool') is not None
                and (name is None or p['custom_fields']['netpool_pool'] == name)
                and isinstance((p['custom_fields'] or {}).get('netpool'), dict)]

    @staticmethod
    def _pools_of(namespace, prefixes):
        by_pool = {}
        for p in prefixes:
            by_pool.setdefault(p['custom_fields']['netpool_pool'], []).append(p)
        pools = {}
        for name, group in by_pool.items():
            group.sort(key=lambda p: p['custom_fields']['netpool'].get('index', 0))
            data = dict(group[0]['custom_fields']['netpool']['pool'], namespace=namespace, name=name,
                        subnets=[p['custom_fields']['netpool']['subnet'] for p in group])
            pool = Pool.from_data(data)
            pool.prefix_ids = dict((s.cidr, p['id']) for s, p in zip(pool.subnets, group))
            pools[name] = pool
        return pools

    def _listed(self, namespace):
        """The pools of a namespace as NetBox has them, read once per transaction."""
        tx = self._tx
        if tx is None or namespace not in tx.listed:
            listed = self._pools_of(namespace, self._prefixes(namespace))
            if tx is None:
                return listed
            tx.listed[namespace] = listed
        return tx.listed[namespace]

    def get_pool(self, namespace, name):
        key = (namespace, name)
        if self._tx is not None and key in self._tx.pools:
            return self._tx.pools[key]
        if self._tx is not None and (self._tx.write or namespace in self._tx.listed):
            pool = self._listed(namespace).get(name)    # a change reads the pool's family too: one request
        else:
            pool = self._pools_of(namespace, self._prefixes(namespace, name)).get(name)
        if self._tx is not None:
            self._tx.pools[key] = pool
        return pool

    def list_pools(self, namespace=None):
        namespaces = [namespace] if namespace is not None else self._namespaces()
        pools = []
        for ns in namespaces:
            found = dict(self._listed(ns))
            if self._tx is not None:
                for (tns, name), pool in self._tx.pools.items():
                    if tns == ns and (pool is not None or name in found):
                        found[name] = pool
            pools += [found[name] for name in sorted(found) if found[name] is not None]
        return pools

    def _namespaces(self):
        names = ['default']
        try:
            names += sorted(v['name'] for v in self._all('/ipam/vrfs/', {'tag': TAG}))
        except _Refused:
            pass
        return names

    def save_pool(self, pool):
        if pool.strategy == 'random':
            raise Unsupported("The NetBox store cannot keep strategy 'random': NetBox hands out the first available "
                              "address of a range. Use strategy 'first' with this store.")
        old = self.get_pool(pool.namespace, pool.name)
        self._tx.pools[(pool.namespace, pool.name)] = pool
        old_ids = dict(getattr(old, 'prefix_ids', {}) or {})

        def send(message):
            vrf = self._vrf(pool.namespace, make=True)
            settings = pool.to_data()
            for k in ('namespace', 'name', 'subnets'):
                settings.pop(k)
            for index, subnet in enumerate(pool.subnets):
                body = {'prefix': subnet.cidr, 'vrf': vrf, 'status': 'active', 'tags': [{'slug': TAG}],
                        'description': ('netpool %s/%s %s' % (pool.namespace, pool.name, pool.description or ''))[:200],
                        'custom_fields': {'netpool_pool': pool.name, 'netpool': {
                            'pool': settings, 'subnet': subnet.to_data(), 'index': index}},
                        'changelog_message': message}
                ident = old_ids.pop(subnet.cidr, None) or self._adopt_prefix(subnet.cidr, vrf)
                if ident is None:
                    self._request('POST', '/ipam/prefixes/', body=body)
                else:
                    self._request('PATCH', '/ipam/prefixes/%d/' % ident, body=body)
            for ident in old_ids.values():
                self._request('DELETE', '/ipam/prefixes/%d/' % ident, body={'changelog_message': message})
        self._later(send)

    def _adopt_prefix(self, cidr, vrf):
        """The id of a prefix NetBox already has for this cidr in the VRF (made by hand), or None."""
        found = self._get('/ipam/prefixes/', {'prefix': cidr, 'vrf_id': 'null' if vrf is None else vrf, 'limit': 2})
        return found['results'][0]['id'] if found['results'] else None

    def delete_pool(self, namespace, name):
        old = self.get_pool(namespace, name)
        self._tx.pools[(namespace, name)] = None
        if old is None:
            return

        def send(message):
            params = self._in(namespace, {'cf_netpool_pool': name})
            for path in ('/ipam/ip-ranges/', '/ipam/ip-addresses/'):
                for obj in self._all(path, dict(params, tag=TAG) if path == '/ipam/ip-ranges/' else
                                     dict(params, status='deprecated')):
                    if (obj['custom_fields'] or {}).get('netpool_pool') == name:
                        self._request('DELETE', '%s%d/' % (path, obj['id']), body={'changelog_message': message})
            for ident in old.prefix_ids.values():
                self._request('DELETE', '/ipam/prefixes/%d/' % ident, body={'changelog_message': message})
        self._later(send)

    # -- reservations ---------------------------------------------------
    def _reservation(self, namespace, obj):
        cf = obj['custom_fields'] or {}
        data = cf.get('netpool') or {}
        version, n = _host(obj['address'])
        r = Reservation(namespace, cf['netpool_pool'], cf['netpool_owner'], data.get('key'), version, n,
                        static=bool(data.get('static')), metadata=data.get('metadata'),
                        created_at=data.get('created_at'), updated_at=data.get('updated_at'),
                        expires_at=data.get('expires_at'))
        r.netbox_id = obj.get('id')
        return r

    @staticmethod
    def _ours(obj):
        """True for an IP address that is a reservation of this collection (active, with a claim)."""
        claimed = (obj.get('custom_fields') or {}).get('netpool_claim')
        return obj.get('status', {}).get('value') == 'active' and bool(claimed)

    def _by_claim(self, namespace, pool, owner, key, fresh=False):
        """The IP addresses holding a claim, lowest id first (read once per transaction unless ``fresh``)."""
        wanted = claim(namespace, pool, owner, key)
        if not fresh and self._tx is not None and wanted in self._tx.claims:
            return self._tx.claims[wanted]
        params = self._in(namespace, {'cf_netpool_claim': wanted, 'limit': 5})
        found = [] if params is None else self._get('/ipam/ip-addresses/', params)['results']
        found = sorted((o for o in found if (o['custom_fields'] or {}).get('netpool_claim') == wanted),
                       key=lambda o: o['id'])
        if self._tx is not None:
            self._tx.claims[wanted] = found
        return found

    def get_reservation(self, namespace, pool, owner, key):
        ident = (namespace, pool, owner, key)
        if self._tx is not None and ident in self._tx.reservations:
            return self._tx.reservations[ident]
        tx = self._tx
        if tx is not None and not tx.write and self._graphql and claim(*ident) not in tx.claims \
                and (namespace, pool) not in tx.pools:
            self._read_with_pool(ident)
        found = self._by_claim(namespace, pool, owner, key)
        return self._reservation(namespace, found[0]) if found else None

    #: a write transaction costs nothing until it commits (there is no lock to take): a change reads and decides in
    #: it, in one request (``expect``), and a rerun that changes nothing sends no write
    probe_first = False

    def expect(self, namespace, pool, owners, key):
        """Read at once, in one GraphQL request, what a change of ``owners``' reservations in ``pool`` reads next:
        their claims, the namespace's pools, the pool's IP ranges and what is due in the namespace (see
        ``_READ_FOR_CHANGE``). Where GraphQL cannot be used, each is read by the REST API when asked for."""
        tx = self._tx
        if tx is None or not self._graphql:
            return
        claims = [claim(namespace, pool, owner, key) for owner in owners]
        bound = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(time.time()) + _DUE_MARGIN))
        # every claim in one question: a regular expression (NetBox allows 10 aliases a query, and its ``in_``
        # lookup of a JSON field matches no string)
        data = self._ask(_READ_FOR_CHANGE, {'claims': '^(%s)$' % '|'.join(re.escape(c) for c in claims), 'pool': pool,
                                            'from': '1970-01-01T00:00:00+00:00', 'to': _netbox_time(bound)})
        if data is None:
            return
        here = self._here(namespace)
        held = [o for o in (_rest_shape(o) for o in data['a'] or []) if here(o)]
        for wanted in claims:
            tx.claims[wanted] = sorted((o for o in held if o['custom_fields'].get('netpool_claim') == wanted),
                                       key=lambda o: o['id'])
        prefixes = [p for p in (_rest_shape(p) for p in data['p'] or []) if here(p) and TAG in p['tags']
                    and isinstance(p['custom_fields'].get('netpool'), dict)]
        tx.listed[namespace] = self._pools_of(namespace, prefixes)
        tx.ranges[(namespace, pool)] = [r for r in (_rest_shape(r) for r in data['r'] or []) if here(r)
                                        and TAG in r['tags']]
        tx.read[namespace] = (bound, [o for o in (_rest_shape(o) for o in data['d'] or []) if here(o)])
        vrfs = set((o['vrf'] or {}).get('id') for o in held + prefixes if o.get('vrf'))
        if namespace != 'default' and len(vrfs) == 1:
            self._vrfs.setdefault(namespace, int(vrfs.pop()))

    def _here(self, namespace):
        """Whether an object read through GraphQL is in the namespace's VRF."""
        global_table = namespace == 'default'

        def here(obj):
            vrf = obj.get('vrf')
            return vrf is None if global_table else vrf is not None and vrf.get('name') == namespace
        return here

    def _ask(self, query, variables):
        """The data a GraphQL query answers (a GET; a POST where the URL would be long), or None where GraphQL
        cannot be used (it is not tried again by this store)."""
        params = {'query': query, 'variables': json.dumps(variables)}
        try:
            if len(params['query']) + len(params['variables']) < 3000:
                data = self._get(self._graphql, params)
            else:
                data = self._request('POST', self._graphql, body={'query': query, 'variables': variables},
                                     ok=(200,)).json()
        except StoreUnavailable:
            data = None     # GraphQL turned off, or not allowed: the REST API says what is wrong, if anything
        if not isinstance(data, dict) or data.get('errors') or not isinstance(data.get('data'), dict):
            self._graphql = None
            return None
        return data['data']

    def get_reservations(self, namespace, pool, owners, key):
        """Those read by ``expect`` already; the others by the REST API, many claims per request."""
        tx = self._tx
        if tx is not None:
            missing = [claim(namespace, pool, owner, key) for owner in owners
                       if (namespace, pool, owner, key) not in tx.reservations
                       and claim(namespace, pool, owner, key) not in tx.claims]
            params = self._in(namespace, {'limit': PAGE}) if len(missing) > 1 else None
            for i in range(0, len(missing) if params is not None else 0, 40):
                chunk = missing[i:i + 40]
                found = self._all('/ipam/ip-addresses/', dict(params, cf_netpool_claim=chunk))
                for wanted in chunk:
                    tx.claims[wanted] = sorted((o for o in found if (o['custom_fields'] or {}).get('netpool_claim')
                                                == wanted), key=lambda o: o['id'])
        return Store.get_reservations(self, namespace, pool, owners, key)

    def _read_with_pool(self, ident):
        """Read a reservation and its pool in one request (NetBox's GraphQL API, a GET): a rerun that changes
        nothing then costs one request. Where GraphQL is off, the REST API reads them in two."""
        namespace, pool = ident[:2]
        wanted = claim(*ident)
        try:
            data = self._get(self._graphql, {'query': _READ_WITH_POOL, 'variables': json.dumps(
                {'claim': wanted, 'pool': pool})})
        except StoreUnavailable:
            data = None     # GraphQL turned off, or not allowed: the REST API says what is wrong, if anything
        if not isinstance(data, dict) or data.get('errors') or not isinstance(data.get('data'), dict):
            self._graphql = None
            return
        global_table = namespace == 'default'

        def here(obj):
            vrf = obj.get('vrf')
            return vrf is None if global_table else vrf is not None and vrf.get('name') == namespace

        held = [dict(o, id=int(o['id']), status={'value': o['status']}, custom_fields=o.get('custom_field_data') or {})
                for o in data['data']['a'] or []]
        self._tx.claims[wanted] = sorted((o for o in held if o['custom_fields'].get('netpool_claim') == wanted),
                                         key=lambda o: o['id'])
        prefixes = [dict(p, id=int(p['id']), custom_fields=p.get('custom_field_data') or {})
                    for p in data['data']['p'] or [] if here(p) and TAG in [t['slug'] for t in p.get('tags') or []]]
        prefixes = [p for p in prefixes if p['custom_fields'].get('netpool_pool') == pool
                    and isinstance(p['custom_fields'].get('netpool'), dict)]
        self._tx.pools[(namespace, pool)] = self._pools_of(namespace, prefixes).get(pool)

    def holder(self, namespace, version, address):
        for r in self._overlay(namespace, version=version, first=address, last=address, fetched=self._fetch(
                namespace, {'address': iv.to_str(version, address)})):
            return r
        return None

    def _fetch(self, namespace, params):
        params = self._in(namespace, dict(params, status='active'))
        if params is None:
            return []
        return [self._reservation(namespace, o) for o in self._all('/ipam/ip-addresses/', params)
                if self._ours(o)]

    def _overlay(self, namespace, fetched, pool=None, owner=None, key=None, version=None, first=None, last=None,
                 expires_before=None):
        """``fetched`` with this transaction's unsent changes applied, filtered exactly, sorted."""
        by_ident = dict((r.ident, r) for r in fetched)
        if self._tx is not None:
            for ident, r in self._tx.reservations.items():
                if ident[0] == namespace:
                    by_ident[ident] = r
        found = []
        for r in by_ident.values():
            if r is None or any(want is not None and want != have for want, have in (
                    (pool, r.pool), (owner, r.owner), (key, r.key), (version, r.version))):
                continue
            if (first is not None and r.address < first) or (last is not None and r.address > last):
                continue
            if expires_before is not None and (r.expires_at is None or r.expires_at > expires_before):
                continue
            found.append(r)
        return sorted(found, key=lambda r: (r.namespace, r.pool, r.version, r.address))

    def _due(self, namespace, time):
        """The IP addresses of a namespace whose ``netpool_expires`` is at or before ``time``: expired leases and
        rests that are over, of every pool, in one read per transaction (a change expires its pool's family)."""
        key = (namespace, time)
        if key not in self._tx.due and namespace in self._tx.read and time <= self._tx.read[namespace][0]:
            self._tx.due[key] = [o for o in self._tx.read[namespace][1] if (
                (o['custom_fields'] or {}).get('netpool_expires') or '').replace('+00:00', 'Z') <= time]
        if key not in self._tx.due:
            params = self._in(namespace, _expiring(time))
            self._tx.due[key] = [] if params is None else self._all('/ipam/ip-addresses/', params)
        return self._tx.due[key]

    def find_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                          first=None, last=None, expires_before=None):
        return self._find(namespace, pool, owner, key, version, first, last, expires_before)

    def _find(self, namespace=None, pool=None, owner=None, key=None, version=None, first=None, last=None,
              expires_before=None):
        """``find_reservations``, for this store's own use (free space, counts)."""
        namespaces = [namespace] if namespace is not None else self._namespaces()
        found = []
        for ns in namespaces:
            if expires_before is not None and self._tx is not None and (owner, key, version, first) == (None,) * 4:
                fetched = [self._reservation(ns, o) for o in self._due(ns, expires_before) if self._ours(o)]
                found += self._overlay(ns, fetched, pool, expires_before=expires_before)
                continue
            params = {}
            if pool is not None:
                params['cf_netpool_pool'] = pool
            if owner is not None:
                params['cf_netpool_owner'] = owner
            if version is not None:
                params['family'] = version
            if expires_before is not None:
                params.update(_expiring(expires_before))
            if version is not None and first is not None and last is not None:
                params['parent'] = str(iv.netaddr.spanning_cidr([iv.netaddr.IPAddress(first, version),
                                                                 iv.netaddr.IPAddress(last, version)]))
            found += self._overlay(ns, self._fetch(ns, params), pool, owner, key, version, first, last,
                                   expires_before)
        return found

    def count_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                           first=None, last=None, expires_before=None):
        """Counted by NetBox (one request per namespace, no address read) where its filters are exact: by pool
        or owner, family and expiry, with no unsent change of this transaction; otherwise found and counted."""
        if (pool is None and owner is None) or key is not None or first is not None or last is not None or \
                (self._tx is not None and self._tx.reservations):
            return len(self._find(namespace, pool, owner, key, version, first, last, expires_before))
        total = 0
        for ns in [namespace] if namespace is not None else self._namespaces():
            params = self._in(ns, {'status': 'active', 'limit': 1})
            if params is None:
                continue
            for name, value in (('cf_netpool_pool', pool), ('cf_netpool_owner', owner), ('family', version)):
                if value is not None:
                    params[name] = value
            if expires_before is not None:
                params.update(_expiring(expires_before))
            total += self._get('/ipam/ip-addresses/', params)['count']
        return total

    def save_reservation(self, reservation):
        r = reservation.copy()
        old = self.get_reservation(*r.ident)
        if old is not None and old.to_data() == r.to_data() and getattr(old, 'sent', False):
            return      # the allocation that created it sent exactly this
        # an address check mode predicted is one NetBox holds free (``_predict``): no holder to look for
        predicted = old is None and (r.version, r.address) in self._tx.predicted
        holder = None if predicted else self.holder(r.namespace, r.version, r.address)
        if holder is not None and holder.ident != r.ident:
            raise AddressInUse('%s is already held by %s/%s in pool %s.'
                               % (r.address_str, holder.owner, holder.key, holder.pool))
        netbox_id = getattr(old, 'netbox_id', None)
        r.netbox_id = netbox_id
        self._tx.reservations[r.ident] = r
        pool = self.get_pool(r.namespace, r.pool)

        def send(message):
            body = self._address_body(r, pool, message)
            if netbox_id is None:
                try:
                    made = self._request('POST', '/ipam/ip-addresses/', body=body).json()
                except _Refused as e:
                    raise self._conflict(r, e)
                r.netbox_id = made['id']
            else:
                self._request('PATCH', '/ipam/ip-addresses/%d/' % netbox_id, body=body)
                self._undoable(message, lambda undo: self._request('PATCH', '/ipam/ip-addresses/%d/' % netbox_id,
                                                                   body=self._address_body(old, pool, undo)))
        self._later(send)

    def _conflict(self, r, refused):
        if 'duplicate' in refused.text.lower() or 'unique' in refused.text.lower():
            return AddressInUse('NetBox already has %s in namespace %s (an IP address this collection does not '
                                'manage, or a reservation made meanwhile): %s'
                                % (r.address_str, r.namespace, refused.text))
        return InvalidArgument('NetBox refused %s for %s/%s in pool %s: %s'
                               % (r.address_str, r.owner, r.key, r.pool, refused.text))

    def _address_body(self, r, pool, message):
        subnet = pool.subnet_of(r.version, r.address) if pool is not None else None
        length = subnet.prefix_length if subnet is not None else (32 if r.version == 4 else 128)
        body = self._claim_body(r, message)
        body['address'] = _cidr(r.version, r.address, length)
        body['vrf'] = self._vrf(r.namespace, make=True)
        return body

    @staticmethod
    def _claim_body(r, message):
        """What an IP address holding reservation ``r`` carries, but for its address and VRF."""
        data = {'key': r.key, 'static': r.static, 'metadata': r.metadata, 'created_at': r.created_at,
                'updated_at': r.updated_at, 'expires_at': r.expires_at}
        return {'status': 'active', 'tags': [{'slug': TAG}],
                'dns_name': r.owner if _DNS_NAME.match(r.owner) else '',
                'description': ('netpool %s/%s %s/%s' % (r.namespace, r.pool, r.owner, r.key))[:200],
                'custom_fields': {'netpool_claim': claim(*r.ident), 'netpool_pool': r.pool, 'netpool_owner': r.owner,
                                  'netpool_expires': _netbox_time(r.expires_at), 'netpool': data},
                'changelog_message': message}

    def delete_reservation(self, reservation):
        old = self.get_reservation(*reservation.ident)
        self._tx.reservations[reservation.ident] = None
        if old is None or getattr(old, 'netbox_id', None) is None:
            return
        pool = self.get_pool(old.namespace, old.pool)

        def send(message):
            self._delete_address(old.netbox_id, message)
            self._undoable(message, lambda undo: self._request('POST', '/ipam/ip-addresses/',
                                                               body=self._address_body(old, pool, undo)))
        self._later(send, frees=(old.version, old.address))

    def _delete_address(self, ident, message):
        """Delete IP address ``ident`` (one already gone is fine)."""
        self._request('DELETE', '/ipam/ip-addresses/%d/' % ident, body={'changelog_message': message}, ok=(204, 404))

    # -- history --------------------------------------------------------
    def add_history(self, entry):
        """NetBox keeps the history: the writes made for this entry carry it in their changelog message."""
        message = _message(entry)
        for kept in self._tx.unnamed:
            kept[1] = message
        self._tx.unnamed = []

    def find_history(self, namespace=None, pool=None, owner=None, address=None):
        """The changes this collection made, from NetBox's change log, oldest first."""
        groups, undone = {}, set()     # token of a history entry -> the changes made for it, in order
        for change in self._all('/core/object-changes/', {'q': 'netpool:', 'ordering': 'time'}):
            words = (change.get('message') or '').split(' ')
            if words[:2] == ['netpool:', 'undo']:
                undone.update(words[2:])            # what a task that failed made, and deleted again
            elif len(words) > 5 and words[0] == 'netpool:' and _TOKEN.match(words[1]):
                groups.setdefault(words[1], []).append(change)
        entries = []
        for changes in sorted((g for token, g in groups.items() if token not in undone),
                              key=lambda group: (group[0]['time'], group[0]['id'])):
            entry = self._entry(changes)
            if all(want is None or want == entry[k] for k, want in (
                    ('namespace', namespace), ('pool', pool), ('owner', owner), ('address', address))):
                entries.append(entry)
        return entries

    def _entry(self, changes):
        """The SPEC history entry that the changes carrying one message made: what it names, from the message;
        ``old`` and ``new``, from what NetBox recorded before and after them."""
        words = [unquote(w) for w in changes[0]['message'].split(' ')[2:]]
        words += [None] * (10 - len(words))
        obj, action, namespace, pool = words[:4]
        entry = {'time': changes[0]['time'][:19] + 'Z', 'namespace': namespace, 'pool': pool, 'object': obj,
                 'action': action, 'owner': words[4], 'key': words[5], 'address': words[6], 'old': None, 'new': None}
        if obj == 'reservation':
            held = [(self._snapshot(namespace, c.get('prechange_data')), self._snapshot(namespace, c.get('postchange_data')))
                    for c in changes if c['changed_object_type'] == 'ipam.ipaddress']
            before = [old for old, _new in held if old is not None]
            after = [new for _old, new in held if new is not None]
            entry['old'] = before[0].to_data() if before else None
            entry['new'] = after[-1].to_data() if after else None
            if action == 'reassign':
                entry['new'] = {'owner': words[7], 'key': words[8], 'pool': words[9]}
            if entry['address'] == '-':
                entry['address'] = (after or before)[-1].address_str if after or before else None
        else:
            prefixes = [c for c in changes if c['changed_object_type'] == 'ipam.prefix']
            entry['old'] = _pool_data(namespace, pool, [c.get('prechange_data') for c in prefixes])
            entry['new'] = _pool_data(namespace, pool, [c.get('postchange_data') for c in prefixes])
        return entry

    def _snapshot(self, namespace, data):
        """The reservation an IP address held in a change log snapshot, or None."""
        if not data or not (data.get('custom_fields') or {}).get('netpool_claim'):
            return None
        return self._reservation(namespace, data)

    def clear_history(self):
        raise Unsupported("NetBox keeps its change log itself: the NetBox store cannot replace a whole state's "
                          "history. Import into a SQLite, JSON or PostgreSQL store instead.")


class NetboxFreeSpace(FreeSpace):
    """Free space as NetBox derives it: IP ranges less the IP addresses inside them."""

    def _ranges(self, pool, subnet=None):
        """The pool's IP ranges as NetBox holds them: ``(version, first, last, id, prefix length)``, sorted (read
        with the rest of a change by ``NetboxStore.expect``, or here)."""
        tx = self.store._tx
        if tx is not None and (pool.namespace, pool.name) in tx.ranges:
            objs = tx.ranges[(pool.namespace, pool.name)]
        else:
            params = self.store._in(pool.namespace, {'tag': TAG, 'cf_netpool_pool': pool.name})
            objs = [] if params is None else self.store._all('/ipam/ip-ranges/', params)
        found = []
        for obj in objs:
            if (obj['custom_fields'] or {}).get('netpool_pool') != pool.name:
                continue
            version, first = _host(obj['start_address'])
            last = _host(obj['end_address'])[1]
            if subnet is None or (subnet.version == version and subnet.first <= first <= subnet.last):
                found.append((version, first, last, obj['id'], int(obj['start_address'].split('/')[1])))
        return sorted(found)

    def allocate(self, pool, subnet, reservation, rng):
        found = self.allocate_many(pool, subnet, [reservation], rng)
        return found[0] if found else None

    def allocate_many(self, pool, subnet, reservations, rng):
        """Range after range of the subnet, one ``POST .../available-ips/`` with a list of every reservation left:
        NetBox allocates it whole under its lock, in one database transaction, or answers 409 when the range has
        fewer free addresses; then one GET asks how many it has, and one POST takes those. Check mode sends no
        write: it asks which addresses NetBox would hand out (``predicted``)."""
        store = self.store
        if pool.strategy == 'random':
            raise Unsupported("The NetBox store cannot hand out addresses at random (strategy 'random').")
        tx = store._tx
        found, left = [], list(reservations)
        for version, first, last, ident, _length in self._ranges(pool, subnet):
            if not left:
                break
            if not tx.commit:
                got = self._predict(version, first, last, ident, len(left))
            else:
                if tx.ops or tx.freed:
                    # NetBox hands out what it holds free: first send what this transaction wrote so far (statics
                    # placed, addresses freed); a failure later undoes them (``_undo``)
                    store._send(tx)
                got = self._post(pool, subnet, ident, left)
            found += got
            left = left[len(got):]
        return found

    def _predict(self, version, first, last, ident, count):
        """Check mode: the ``count`` addresses of range ``ident`` a real run would hand out, those this transaction
        predicted, placed or let rest already left aside and those it freed counted in."""
        tx = self.store._tx
        held = set((r.version, r.address) for r in tx.reservations.values() if r is not None)
        taken = set(n for v, n in tx.predicted | held if v == version and first <= n <= last)
        answer = self.store._get('/ipam/ip-ranges/%d/available-ips/' % ident, {'limit': count + len(taken)})
        free = [n for v, n in tx.freed if v == version and first <= n <= last]
        free = sorted(set(free + [_host(a['address'])[1] for a in answer]) - taken)[:count]
        tx.predicted.update((version, n) for n in free)
        return free

    def _post(self, pool, subnet, ident, reservations):
        """Allocate addresses of range ``ident`` to as many of ``reservations`` as it has free: their addresses."""
        store = self.store
        path = '/ipam/ip-ranges/%d/available-ips/' % ident
        bodies = []
        for reservation in reservations:
            r = reservation.copy()
            r.version = subnet.version
            body = store._claim_body(r, _message({'object': 'reservation', 'action': 'reserve',
                                                  'namespace': r.namespace, 'pool': r.pool, 'owner': r.owner,
                                                  'key': r.key}))
            body['prefix_length'] = subnet.prefix_length
            bodies.append(body)
        try:
            made = store._request('POST', path, body=bodies, ok=(200, 201)).json()
        except _Refused as e:
            if e.status == 409:         # fewer free than asked: ask how many, take those
                free = len(store._get(path, {'limit': len(bodies)}))
                if not free:
                    return []
                return self._post(pool, subnet, ident, reservations[:free])
            if 'netpool_claim' in e.text or 'unique' in e.text.lower():
                if len(reservations) > 1:       # one of them was reserved meanwhile: one by one, adopting it
                    found = []
                    for r in reservations:
                        got = self._post(pool, subnet, ident, [r])
                        if not got:
                            break
                        found += got
                    return found
                return [self._adopt(pool, reservations[0])]     # another fork or controller reserved it meanwhile
            raise
        found = []
        for obj in made:
            r = store._reservation(pool.namespace, dict(obj, custom_fields=obj.get('custom_fields') or {}))
            r.sent = True
            store._tx.reservations[r.ident] = r
            found.append(r.address)
        return found

    def _adopt(self, pool, reservation):
        """The address of a reservation another process made meanwhile (NetBox refused this one's claim)."""
        store = self.store
        holders = store._by_claim(*reservation.ident, fresh=True)
        if not holders:
            raise StoreBusy('NetBox refused a second claim on %s/%s/%s/%s but shows none: try again.'
                            % reservation.ident)
        r = store._reservation(pool.namespace, holders[0])
        r.sent = True
        store._tx.reservations[r.ident] = r
        reservation.metadata, reservation.created_at = r.metadata, r.created_at
        return r.address

    def take(self, pool, version, n):
        store = self.store
        for member in Tree.of(store, pool.namespace).family(pool):
            for v, n, until, ident in self._resting(member, v_n=(version, n)):
                def send(message, member=member, v=v, n=n, until=until, ident=ident):
                    store._delete_address(ident, message)
                    store._undoable(message, functools.partial(self._rest, member, v, n, until))
                store._later(send, frees=(v, n))

    def give_back(self, pool, version, n, until=None):
        if until is None:
            return      # the IP address is deleted: NetBox hands it out again
        self.store._tx.freed.discard((version, n))      # it rests: NetBox will not hand it out
        self.store._later(functools.partial(self._rest, pool, version, n, until))

    def _rest(self, pool, version, n, until, message):
        """Make the IP address that keeps ``n`` resting in ``pool`` until ``until``."""
        store = self.store
        subnet = pool.subnet_of(version, n)
        length = subnet.prefix_length if subnet is not None else (32 if version == 4 else 128)
        store._request('POST', '/ipam/ip-addresses/', body={
            'address': _cidr(version, n, length), 'vrf': store._vrf(pool.namespace, make=True),
            'status': 'deprecated', 'tags': [{'slug': TAG}],
            'description': 'netpool: resting in %s/%s until %s' % (pool.namespace, pool.name, until),
            'custom_fields': {'netpool_pool': pool.name, 'netpool_expires': _netbox_time(until)},
            'changelog_message': message})

    def _resting(self, pool, due=None, v_n=None):
        store = self.store
        if due is not None and v_n is None and store._tx is not None:
            objs = store._due(pool.namespace, due)
        else:
            params = {'status': 'deprecated', 'cf_netpool_pool': pool.name}
            if due is not None:
                params.update(_expiring(due))
            if v_n is not None:
                params['address'] = iv.to_str(*v_n)
            params = store._in(pool.namespace, params)
            objs = [] if params is None else store._all('/ipam/ip-addresses/', params)
        found = []
        for obj in objs:
            cf = obj['custom_fields'] or {}
            if obj['status']['value'] != 'deprecated' or cf.get('netpool_pool') != pool.name or cf.get('netpool_claim'):
                continue
            until = (cf.get('netpool_expires') or '').replace('+00:00', 'Z')
            if due is None or until <= due:
                found.append(_host(obj['address']) + (until, obj['id']))
        return sorted(found)

    def resting(self, pool, due=None):
        return [(v, n, until) for v, n, until, _id in self._resting(pool, due)]

    def settle(self, pool, now):
        for v, n, _until, ident in self._resting(pool, due=now):
            self.store._later(functools.partial(self.store._delete_address, ident), frees=(v, n))

    def rebuild(self, pool):
        """Make the pool's IP ranges what its subnets may hand out (sent when the transaction commits).

        NetBox's IP ranges hold at most 2**32 - 1 addresses: a larger span (an IPv6 subnet left without
        ranges) is ``unsupported``, refused before anything is sent."""
        store = self.store
        current = store.get_pool(pool.namespace, pool.name)
        if current is None:
            return
        tree = Tree.of(store, pool.namespace)
        wanted = set()
        for subnet in current.subnets:
            for a, b in tree.allocatable(current, subnet):
                if b - a + 1 > RANGE_LIMIT:
                    raise Unsupported(
                        "The NetBox store keeps what a subnet hands out as NetBox IP ranges, which hold at most %d "
                        "addresses; subnet %s of pool '%s' would hand out %s. Give the subnet ranges (for example "
                        "ranges: ['%s']), or use another store for it."
                        % (RANGE_LIMIT, subnet.cidr, current.name, iv.format_span(subnet.version, a, b),
                           iv.format_span(subnet.version, a, min(b, a + 65535))))
                wanted.add((subnet.version, a, b, subnet.prefix_length))
        tx = store._tx
        if not tx.rebuilt:
            store._later(self._send_ranges, last=True)
        tx.rebuilt[(current.namespace, current.name)] = (current, wanted)

    def _send_ranges(self, message):
        """Make the IP ranges of the pools rebuilt in this transaction what they should be: NetBox refuses
        overlapping ranges in a VRF, so every range that goes is deleted first, then masks are changed, then
        the new ranges made (a child carved out of its parent takes a part of the parent's old range)."""
        store = self.store
        rebuilt, store._tx.rebuilt = store._tx.rebuilt, {}
        plans = []
        for pool, wanted in rebuilt.values():
            have = dict(((v, a, b), (ident, length)) for v, a, b, ident, length in self._ranges(pool))
            wanted = dict(((v, a, b), length) for v, a, b, length in wanted)
            for span in sorted(set(have) - set(wanted)):
                store._request('DELETE', '/ipam/ip-ranges/%d/' % have[span][0], body={'changelog_message': message})
            plans.append((pool, have, wanted))
        for pool, have, wanted in plans:
            vrf = store._vrf(pool.namespace, make=True)
            for (v, a, b), length in sorted(wanted.items()):
                body = {'start_address': _cidr(v, a, length), 'end_address': _cidr(v, b, length),
                        'changelog_message': message}
                if (v, a, b) not in have:
                    body.update({'vrf': vrf, 'status': 'active', 'tags': [{'slug': TAG}],
                                 'description': 'netpool %s/%s' % (pool.namespace, pool.name),
                                 'custom_fields': {'netpool_pool': pool.name}})
                    store._request('POST', '/ipam/ip-ranges/', body=body)
                elif have[(v, a, b)][1] != length:       # its subnet was resized: the same span, another mask
                    store._request('PATCH', '/ipam/ip-ranges/%d/' % have[(v, a, b)][0], body=body)

    def spans(self, pool, version=None, lo=None, hi=None):
        """What NetBox itself would hand out: the pool's IP ranges as NetBox holds them, less every IP address
        NetBox has inside them (reservations, rests, and any made by hand). Not derived from the pool: ``verify``
        compares it with what the pool derives, so a hand edit of a range or an address in NetBox shows."""
        store = self.store
        rebuilt = store._tx.rebuilt.get((pool.namespace, pool.name)) if store._tx is not None else None
        if rebuilt is not None:     # rebuilt in this transaction: the ranges it makes at its commit
            ranges = sorted((v, a, b, None, length) for v, a, b, length in rebuilt[1])
        else:
            ranges = self._ranges(pool)
        taken = {}
        for subnet in pool.subnets:
            if not any(v == subnet.version and subnet.first <= a <= subnet.last for v, a, _b, _i, _l in ranges):
                continue
            params = store._in(pool.namespace, {'parent': subnet.cidr})
            for obj in [] if params is None else store._all('/ipam/ip-addresses/', params):
                v, n = _host(obj['address'])
                taken.setdefault(v, []).append((n, n))
        spans = []
        for v, a, b, _ident, _length in ranges:
            spans += [(v, first, last) for first, last in iv.subtract([(a, b)], sorted(taken.get(v, [])))]
        # what this transaction changed and has not sent yet (check mode, or before its commit)
        tx = store._tx
        if tx is not None and (tx.reservations or tx.freed):
            held = [(r.version, r.address) for r in tx.reservations.values() if r is not None]
            by_version = {}
            for v, a, b in spans:
                by_version.setdefault(v, []).append((a, b))
            for v, n in tx.freed:
                if any(rv == v and a <= n <= b for rv, a, b, _i, _l in ranges):
                    by_version[v] = iv.merge(by_version.get(v, []) + [(n, n)])
            for v, n in held:
                by_version[v] = iv.subtract(by_version.get(v, []), [(n, n)])
            spans = sorted((v, a, b) for v, pairs in by_version.items() for a, b in pairs)
        spans = sorted(spans)
        found = []
        for v, a, b in spans:
            if version is not None and v != version:
                continue
            if lo is not None:
                a = max(a, lo)
            if hi is not None:
                b = min(b, hi)
            if a <= b:
                found.append((v, a, b))
        return found


def _message(entry):
    """The changelog message of the writes made for a history entry: ``netpool:``, a token of its own, then
    what it names (each word percent-encoded). NetBox keeps 200 characters: the words cut off are read back
    from the objects' own data."""
    words = [entry['object'], entry['action'], entry['namespace'], entry['pool'] or '-']
    if entry.get('owner') is not None:
        words += [entry['owner'], entry['key'], entry.get('address') or '-']
        if entry['action'] == 'reassign':
            words += [(entry.get('new') or {}).get(k) or '-' for k in ('owner', 'key', 'pool')]
    text = 'netpool: %s %s' % (binascii.hexlify(os.urandom(6)).decode(), ' '.join(quote(w, safe='') for w in words))
    return text[:200]


def _pool_data(namespace, name, snapshots):
    """A pool's data from change log snapshots of its prefixes, or None if none held it."""
    held = [d['custom_fields'] for d in snapshots if d and isinstance((d.get('custom_fields') or {}).get('netpool'), dict)]
    if not held:
        return None
    return dict(held[0]['netpool'].get('pool') or {}, namespace=namespace, name=name,
                subnets=[cf['netpool'].get('subnet') for cf in held])


def _rest_shape(obj):
    """An object read through GraphQL in the shape the REST API gives it (what this store reads)."""
    found = dict(obj, id=int(obj['id']), custom_fields=obj.get('custom_field_data') or {})
    if 'status' in obj:
        found['status'] = {'value': obj['status']}
    if 'tags' in obj:
        found['tags'] = [t['slug'] for t in obj.get('tags') or []]
    if found.get('vrf'):
        found['vrf'] = dict(found['vrf'], id=int(found['vrf']['id']))
    return found


def _first_line(error):
    return str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__


def _path(url):
    return urlsplit(url).path


class _Refused(StoreUnavailable):
    """NetBox refused a request (a 4xx other than 401/403): the caller may know what it means."""

    def __init__(self, status, where, text):
        StoreUnavailable.__init__(self, 'NetBox refused %s (%d): %s' % (where, status, text))
        self.status, self.where, self.text = status, where, text
