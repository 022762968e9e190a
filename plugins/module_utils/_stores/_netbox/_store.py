# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetBox store: this collection's pools and reservations kept in a NetBox 4.x (``requests``).

This is a private module: it may change at any time. The mapping (docs/stores.md):

- a namespace is a VRF of that name (``default`` is the global table); a VRF is created, with
  ``enforce_unique``, by the first change in its namespace;
- a pool's subnet is a prefix tagged ``netpool`` with the custom fields ``netpool_pool`` (the pool's name)
  and ``netpool`` (JSON: the pool's settings, the subnet's gateway, dns, ranges and exclusions, its order);
  NetBox keeps one prefix per cidr in a VRF, so a child pool as wide as its parent's subnet is nested in the
  data of the parent's prefix (``_mapping.held_by``);
- what a subnet may hand out (its ranges less exclusions, the gateway, child pools and what an ancestor
  withholds: ``_tree``) is a set of IP ranges tagged ``netpool``, derived again whenever the shape of the pool
  or of a pool it is carved from changes;
- a reservation is an IP address with status ``active`` and the custom fields ``netpool_claim`` (unique:
  ``namespace/pool/owner/key``, each part percent-encoded, and ``/ipv6`` after it for an IPv6 reservation: an owner
  and key hold one of each family with ``family: dual``), ``netpool_pool``, ``netpool_owner``,
  ``netpool_expires`` (a lease's end, a datetime) and ``netpool`` (JSON: key, static, metadata, times); its
  ``dns_name`` is the owner where the owner is a DNS name;
- an address resting under a reuse delay is an IP address with status ``deprecated``, ``netpool_pool`` and
  ``netpool_expires`` set to the end of the rest;
- history is NetBox's own change log: every change this store makes carries a changelog message
  ``netpool: <action> ...``, and ``find_history`` reads those changes back (``_history``).

Free space is NetBox's: a dynamic reservation is one ``POST .../ip-ranges/{id}/available-ips/`` carrying the
claim, atomic in NetBox (its advisory lock, and the claim's uniqueness: a second request for the same
reservation is refused and adopts the first one's address). NetBox has no transactions across requests:
writes are kept until the transaction commits and then sent in order; an allocation, which must be sent to
learn its address, is deleted again if the transaction fails. Check mode sends no write at all: an
allocation then asks NetBox which address it would hand out (``predicted``).
What a task reads next is read ahead in one GraphQL request where NetBox allows it (``_graphql``).

What NetBox cannot hold faithfully is ``unsupported``: the ``random`` strategy (NetBox hands out the first
available address of a range), and a child pool by ranges (docs/design.md#trees: on its parent's prefix, with ranges that
would overlap the IP ranges it hands out, which NetBox refuses in a VRF).
"""

import contextlib
import functools

from urllib.parse import urlsplit, urlunsplit

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _retry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, InvalidArgument, Unsupported, missing_library)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._base import Store
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox import _client
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._client import (
    Client, Refused, Transaction, holding)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._mapping import (
    PAGE, TAG, address_cidr, claim, claim_body, claims_of, expiring, ours, pools_of, prefix_body, reservation_of,
    unclaimed_body)
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._graphql import GraphqlReads
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._history import NetboxHistory
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._secrets import redact
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import lineage


class NetboxStore(GraphqlReads, NetboxHistory, Store):
    """Pools and reservations in NetBox's IPAM, over its REST API."""

    kind = 'netbox'

    def __init__(self, spec, timeout=30, validate_certs=True, token=None, create=True):
        if not _client.HAVE_REQUESTS:
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
        self.url = urlunsplit((parts.scheme, parts.netloc, path, '', ''))
        self.timeout = timeout
        self.create = create
        self.client = Client(base=urlunsplit((scheme, parts.netloc, path + '/api', '', '')),
                             graphql=urlunsplit((scheme, parts.netloc, path + '/graphql/', '', '')),
                             url=self.url, timeout=timeout, token=token, validate_certs=validate_certs)

    # -- transactions ---------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, write=True, commit=True):
        if self.client.tx is not None:
            raise RuntimeError('NetBox store transactions do not nest')
        self.client.tx = tx = Transaction(write, commit)
        try:
            yield self
            if write and commit:
                self.client.send(tx)
        except BaseException as e:
            if _retry.kind_of(e) == _retry.COMMIT:
                # a write NetBox may have applied, its answer lost: nothing is undone (it cannot be, unseen); the
                # next attempt reads what NetBox holds, after ``commit_landed`` has read whether the write was kept
                raise
            # what happened stays said as it was, and a Retry-After asked for stays asked for
            happened = dict(said=getattr(e, 'said', None), after=getattr(e, 'after', None))
            if not self.client.undo(tx) and _retry.kind_of(e) is not None:
                _retry.mark(e, _retry.COMMIT, {'kept': True, 'tokens': []}, **happened)     # what was sent stays
            elif tx.answered and _retry.kind_of(e) is not None:
                _retry.mark(e, _retry.TRANSACTION, **happened)      # sent, and undone
            raise
        finally:
            self.client.tx = None

    def lock_pool(self, namespace, name):
        """Nothing: NetBox has no lock a client can hold. Its allocation is atomic, and the claim unique."""

    def lock_namespace(self, namespace):
        """Nothing (see ``lock_pool``)."""

    def close(self):
        self.client.close()

    # -- pools ----------------------------------------------------------
    def _prefixes(self, namespace, name=None):
        params = self.client.scoped(namespace, {'tag': TAG})
        if params is None:
            return []
        if name is not None:
            params['cf_netpool_pool'] = name
        try:
            found = self.client.all('/ipam/prefixes/', params)
        except Refused:
            return []       # no tag netpool yet: nothing of this collection's is here
        return [p for p in found if (p['custom_fields'] or {}).get('netpool_pool') is not None
                and (name is None or p['custom_fields']['netpool_pool'] == name)
                and isinstance((p['custom_fields'] or {}).get('netpool'), dict)]

    def _listed(self, namespace):
        """The pools of a namespace as NetBox has them, read once per transaction."""
        tx = self.client.tx
        if tx is None or namespace not in tx.listed:
            listed = pools_of(namespace, self._prefixes(namespace))
            if tx is None:
                return listed
            tx.listed[namespace] = listed
        return tx.listed[namespace]

    def get_pool(self, namespace, name):
        key = (namespace, name)
        if self.client.tx is not None and key in self.client.tx.pools:
            return self.client.tx.pools[key]
        if self.client.tx is not None and (self.client.tx.write or namespace in self.client.tx.listed):
            pool = self._listed(namespace).get(name)    # a change reads the pool's tree too: one request
        else:
            pool = pools_of(namespace, self._prefixes(namespace, name), whole=False).get(name)
            if pool is None:    # a pool nested in another's prefix (or none): the namespace's prefixes say
                pool = self._listed(namespace).get(name)
        if self.client.tx is not None:
            self.client.tx.pools[key] = pool
        return pool

    def list_pools(self, namespace=None):
        namespaces = [namespace] if namespace is not None else self._namespaces()
        pools = []
        for ns in namespaces:
            found = dict(self._listed(ns))
            if namespace is None and self.client.tx is not None and not self.client.tx.write:
                self.client.tx.enumerated.add(ns)     # a read of the whole store: ``NetboxFreeSpace._whole``
            if self.client.tx is not None:
                for (tns, name), pool in self.client.tx.pools.items():
                    if tns == ns and (pool is not None or name in found):
                        found[name] = pool
            pools += [found[name] for name in sorted(found) if found[name] is not None]
        return pools

    def _namespaces(self):
        names = ['default']
        try:
            names += sorted(v['name'] for v in self.client.all('/ipam/vrfs/', {'tag': TAG}))
        except Refused:
            pass
        return names

    def save_pool(self, pool):
        if pool.strategy == 'random':
            raise Unsupported("The NetBox store cannot keep strategy 'random': NetBox hands out the first available "
                              "address of a range. Use strategy 'first' with this store.")
        if pool.by_ranges:
            raise Unsupported(
                "The NetBox store cannot keep pool '%s', a child of '%s' by ranges: it keeps a pool's subnets as "
                "prefixes and what a pool hands out as IP ranges, which NetBox refuses to overlap in a VRF, and the "
                "ranges such a child holds on its parent's prefix would overlap the IP ranges it hands out. Carve "
                "the child as a prefix (parent with prefix_length), or keep this tree in a SQLite, JSON or "
                "PostgreSQL store." % (pool.name, pool.parent))
        old = self.get_pool(pool.namespace, pool.name)
        self.client.tx.pools[(pool.namespace, pool.name)] = pool
        cidrs = [s.cidr for s in pool.subnets] + [s.cidr for s in (old.subnets if old is not None else [])]
        bodies = self._prefixes_now(pool.namespace, cidrs)
        self.client.later(functools.partial(self._send_prefixes, pool.namespace, bodies))

    def _prefixes_now(self, namespace, cidrs):
        """``[(cidr, the body of its prefix)]``, as the pools hold each cidr now (this transaction's changes so far
        included; the body None where none does). Pools of one namespace overlap only along a branch of a tree:
        a cidr's holders are a pool and child pools as wide as it (``prefix_body``)."""
        pools = self.list_pools(namespace)
        by_name = dict((p.name, p) for p in pools)
        found = []
        for cidr in sorted(set(cidrs), key=cidrs.index):
            holders = sorted(((p, i) for p in pools for i, s in enumerate(p.subnets) if s.cidr == cidr),
                             key=lambda held: (len(lineage(held[0], by_name.get)), held[0].name))
            found.append((cidr, prefix_body(holders) if holders else None))
        return found

    def _send_prefixes(self, namespace, bodies, message):
        """Make the prefixes of the cidrs what ``_prefixes_now`` found. NetBox keeps one prefix per
        cidr in a VRF (``enforce_unique``, and ``ENFORCE_GLOBAL_UNIQUE`` for the global table), and a child pool
        may be as wide as its parent's subnet: a cidr's prefix is named for the outermost pool holding it, the
        pools below nested in its data (``prefix_body``). A prefix no pool holds any more is deleted; one that
        exists already for a cidr (made by hand) is adopted."""
        tx = self.client.tx
        if namespace not in tx.prefixes:
            tx.prefixes[namespace] = dict((cidr, ident) for p in self._listed(namespace).values()
                                          for cidr, ident in p.prefix_ids.items())
        ids = tx.prefixes[namespace]
        vrf = self.client.vrf(namespace, make=True)
        for cidr, body in bodies:
            ident = ids.get(cidr)
            if body is None:
                if ident is not None:
                    self.client.request('DELETE', '/ipam/prefixes/%d/' % ident, body={'changelog_message': message})
                    del ids[cidr]
                continue
            if ident is None:
                ident = self._adopt_prefix(cidr, vrf)
            body = dict(body, vrf=vrf, changelog_message=message)
            if ident is None:
                ids[cidr] = self.client.request('POST', '/ipam/prefixes/', body=body).json()['id']
            else:
                self.client.request('PATCH', '/ipam/prefixes/%d/' % ident, body=body)
                ids[cidr] = ident

    def _adopt_prefix(self, cidr, vrf):
        """The id of a prefix NetBox already has for this cidr in the VRF (made by hand), or None."""
        found = self.client.get('/ipam/prefixes/', {'prefix': cidr, 'vrf_id': 'null' if vrf is None else vrf, 'limit': 2})
        return found['results'][0]['id'] if found['results'] else None

    def delete_pool(self, namespace, name, keep_resting=False):
        old = self.get_pool(namespace, name)
        self.client.tx.pools[(namespace, name)] = None
        if old is None:
            return
        bodies = self._prefixes_now(namespace, [s.cidr for s in old.subnets])

        def send(message):
            params = self.client.scoped(namespace, {'cf_netpool_pool': name})
            for path in ('/ipam/ip-ranges/',) + (() if keep_resting else ('/ipam/ip-addresses/',)):
                for obj in self.client.all(path, dict(params, tag=TAG) if path == '/ipam/ip-ranges/' else
                                           dict(params, status='deprecated')):
                    if (obj['custom_fields'] or {}).get('netpool_pool') == name:
                        self.client.request('DELETE', '%s%d/' % (path, obj['id']), body={'changelog_message': message})
            self._send_prefixes(namespace, bodies, message)
        self.client.later(send)

    # -- reservations ---------------------------------------------------
    def get_reservation(self, namespace, pool, owner, key, version=None):
        tx = self.client.tx
        found = {}      # version -> the reservation this transaction wrote (None: deleted), else NetBox's
        for v in (4, 6) if version is None else (version,):
            if tx is not None and (namespace, pool, owner, key, v) in tx.reservations:
                found[v] = tx.reservations[(namespace, pool, owner, key, v)]
        if len(found) < (2 if version is None else 1):
            ident = (namespace, pool, owner, key)
            if tx is not None and not tx.write and self.client.graphql and claim(*ident) not in tx.claims \
                    and (namespace, pool) not in tx.pools:
                self._read_with_pool(ident)
            for obj in self.client.by_claim(namespace, pool, owner, key):
                r = reservation_of(namespace, obj)
                if (version is None or r.version == version) and r.version not in found:
                    found[r.version] = r
        return next((found[v] for v in sorted(found) if found[v] is not None), None)

    def reservation_transaction(self, namespace, pool, owners, key, commit, as_rerun, change):
        """A write transaction costs nothing until it commits (there is no lock to take): a change reads and decides
        in it, what it reads fetched in one request (``_read_for_change``), and a rerun that changes nothing sends
        no write."""
        with self.transaction(commit=commit):
            self._read_for_change(namespace, pool, owners, key)
            return change()

    def get_reservations(self, namespace, pool, owners, key):
        """Those read by ``expect`` already; the others by the REST API, many claims per request."""
        tx = self.client.tx
        if tx is not None:
            missing = [claim(namespace, pool, owner, key) for owner in owners
                       if not all((namespace, pool, owner, key, v) in tx.reservations for v in (4, 6))
                       and claim(namespace, pool, owner, key) not in tx.claims]
            params = self.client.scoped(namespace, {'limit': PAGE}) if len(missing) > 1 else None
            for i in range(0, len(missing) if params is not None else 0, 20):
                chunk = missing[i:i + 20]
                found = self.client.all('/ipam/ip-addresses/', dict(params, cf_netpool_claim=[
                    c for wanted in chunk for c in claims_of(wanted)]))
                for wanted in chunk:
                    tx.claims[wanted] = holding(found, wanted)
        return Store.get_reservations(self, namespace, pool, owners, key)

    def holder(self, namespace, version, address):
        for r in self._overlay(namespace, version=version, first=address, last=address, fetched=self._fetch(
                namespace, {'address': iv.to_str(version, address)})):
            return r
        return None

    def _fetch(self, namespace, params):
        params = self.client.scoped(namespace, dict(params, status='active'))
        if params is None:
            return []
        return [reservation_of(namespace, o) for o in self.client.all('/ipam/ip-addresses/', params)
                if ours(o)]

    def _overlay(self, namespace, fetched, **wanted):
        """``fetched`` with this transaction's unsent changes applied, filtered exactly by ``wanted`` (``pool``,
        ``owner``, ``key``, ``version``, ``first``, ``last``, ``expires_before``: the filters of
        ``find_reservations``; one not given selects all), sorted."""
        pool, owner, key, version, first, last, expires_before = (
            wanted.pop(name, None) for name in ('pool', 'owner', 'key', 'version', 'first', 'last', 'expires_before'))
        if wanted:
            raise TypeError('_overlay has no filter %s' % ', '.join(sorted(wanted)))
        by_ident = dict((r.ident, r) for r in fetched)
        if self.client.tx is not None:
            for ident, r in self.client.tx.reservations.items():
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

    def find_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                          first=None, last=None, expires_before=None):
        return self._find(namespace, pool, owner, key, version, first, last, expires_before)

    def _find(self, namespace=None, pool=None, owner=None, key=None, version=None, first=None, last=None,
              expires_before=None):
        """``find_reservations``, for this store's own use (free space, counts)."""
        namespaces = [namespace] if namespace is not None else self._namespaces()
        found = []
        for ns in namespaces:
            if expires_before is not None and self.client.tx is not None and (owner, key, version, first) == (None,) * 4:
                fetched = [reservation_of(ns, o) for o in self.client.due(ns, expires_before) if ours(o)]
                found += self._overlay(ns, fetched, pool=pool, expires_before=expires_before)
                continue
            params = {}
            if pool is not None:
                params['cf_netpool_pool'] = pool
            if owner is not None:
                params['cf_netpool_owner'] = owner
            if version is not None:
                params['family'] = version
            if expires_before is not None:
                params.update(expiring(expires_before))
            if version is not None and first is not None and last is not None:
                params['parent'] = str(iv.netaddr.spanning_cidr([iv.netaddr.IPAddress(first, version),
                                                                 iv.netaddr.IPAddress(last, version)]))
            found += self._overlay(ns, self._fetch(ns, params), pool=pool, owner=owner, key=key, version=version,
                                   first=first, last=last, expires_before=expires_before)
        return found

    def count_reservations(self, namespace=None, pool=None, owner=None, key=None, version=None,
                           first=None, last=None, expires_before=None):
        """Counted by NetBox (one request per namespace, no address read) where its filters are exact: by pool
        or owner, family and expiry, with no unsent change of this transaction; otherwise found and counted."""
        if (pool is None and owner is None) or key is not None or first is not None or last is not None or \
                (self.client.tx is not None and self.client.tx.reservations):
            return len(self._find(namespace, pool, owner, key, version, first, last, expires_before))
        total = 0
        for ns in [namespace] if namespace is not None else self._namespaces():
            params = self.client.scoped(ns, {'status': 'active', 'limit': 1})
            if params is None:
                continue
            for name, value in (('cf_netpool_pool', pool), ('cf_netpool_owner', owner), ('family', version)):
                if value is not None:
                    params[name] = value
            if expires_before is not None:
                params.update(expiring(expires_before))
            total += self.client.get('/ipam/ip-addresses/', params)['count']
        return total

    def save_reservation(self, reservation):
        self._save(reservation)

    def adopt_reservation(self, reservation):
        """An IP address NetBox keeps at that address without this collection's claim (made by hand, by another
        tool) is claimed: it becomes the reservation, its id kept; otherwise as ``save_reservation``."""
        self._save(reservation, claim=True)

    def _save(self, reservation, claim=False):
        r = reservation.copy()
        old = self.get_reservation(*r.ident)
        if old is not None and old.to_data() == r.to_data() and getattr(old, 'sent', False):
            return      # the allocation that created it sent exactly this
        # an address check mode predicted is one NetBox holds free (``_predict``): no holder to look for
        predicted = old is None and (r.version, r.address) in self.client.tx.predicted
        holder = None if predicted else self.holder(r.namespace, r.version, r.address)
        if holder is not None and holder.ident != r.ident:
            raise AddressInUse('%s is already held by %s/%s in pool %s.'
                               % (r.address_str, holder.owner, holder.key, holder.pool))
        netbox_id = getattr(old, 'netbox_id', None)
        r.netbox_id = netbox_id
        if netbox_id is None and r.version == 4:
            self.client.reclaim(*r.ident[:4])       # an IPv6 reservation made before 1.1.0 holds its claim
        self.client.tx.reservations[r.ident] = r
        pool = self.get_pool(r.namespace, r.pool)

        def send(message):
            body = self._address_body(r, pool, message)
            unclaimed = self._unclaimed(r) if claim and netbox_id is None else None
            if unclaimed is not None:
                self.client.request('PATCH', '/ipam/ip-addresses/%d/' % unclaimed['id'], body=body)
                self.client.undoable(message, lambda undo: self.client.request(
                    'PATCH', '/ipam/ip-addresses/%d/' % unclaimed['id'], body=unclaimed_body(unclaimed, undo)))
                r.netbox_id = unclaimed['id']
            elif netbox_id is None:
                try:
                    made = self.client.request('POST', '/ipam/ip-addresses/', body=body).json()
                except Refused as e:
                    raise self._conflict(r, e)
                r.netbox_id = made['id']
            else:
                self.client.request('PATCH', '/ipam/ip-addresses/%d/' % netbox_id, body=body)
                self.client.undoable(message, lambda undo: self.client.request(
                    'PATCH', '/ipam/ip-addresses/%d/' % netbox_id, body=self._address_body(old, pool, undo)))
        self.client.later(send)

    def _unclaimed(self, r):
        """The IP address NetBox keeps at ``r``'s address in its namespace without this collection's claim or
        pool (made by hand, or by another tool), or None."""
        params = self.client.scoped(r.namespace, {'address': iv.to_str(r.version, r.address)})
        found = [o for o in (self.client.all('/ipam/ip-addresses/', params) if params is not None else [])
                 if not (o.get('custom_fields') or {}).get('netpool_claim')
                 and not (o.get('custom_fields') or {}).get('netpool_pool')]
        return found[0] if found else None

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
        body = claim_body(r, message)
        body['address'] = address_cidr(r.version, r.address, length)
        body['vrf'] = self.client.vrf(r.namespace, make=True)
        return body

    def delete_reservation(self, reservation):
        old = self.get_reservation(*reservation.ident)
        self.client.tx.reservations[reservation.ident] = None
        if old is None or getattr(old, 'netbox_id', None) is None:
            return
        pool = self.get_pool(old.namespace, old.pool)

        def send(message):
            undone = self.client.taken_back(old.netbox_id)
            if undone is not None:      # allocated by this transaction: deleted as never handed out
                self.client.delete_address(old.netbox_id, undone)
                return
            self.client.delete_address(old.netbox_id, message)
            self.client.undoable(message, lambda undo: self.client.request(
                'POST', '/ipam/ip-addresses/', body=self._address_body(old, pool, undo)))
        self.client.later(send, frees=(old.version, old.address))
