# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""NetBox's own free space: IP ranges less the IP addresses inside them (docs/design.md#stores).

This is a private module: it may change at any time. A dynamic reservation is one ``POST
.../ip-ranges/{id}/available-ips/``, atomic in NetBox; check mode asks which addresses NetBox would hand out
(``predicted``). It uses the store only through the store interface and NetBox's API through the store's
``Client`` (``store.client``), by their public methods.
"""

import functools

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import StoreBusy, Unsupported
from ansible_collections.netpool.ipam.plugins.module_utils._space._interface import FreeSpace
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._client import Refused
from ansible_collections.netpool.ipam.plugins.module_utils._stores._netbox._mapping import (
    RANGE_LIMIT, TAG, address_cidr, address_of, changelog_message, claim_body, expiring, netbox_time, reservation_of)
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import Tree


#: subnets asked for in one request of the IP addresses inside them (``_inside``): a URL of a few kilobytes
PARENTS = 40


def _nothing(message):     # pylint: disable=unused-argument
    """A write taken back before it was sent (``NetboxFreeSpace.take`` of a rest this transaction made)."""


class NetboxFreeSpace(FreeSpace):
    """Free space as NetBox derives it: IP ranges less the IP addresses inside them."""

    def __init__(self, store):
        FreeSpace.__init__(self, store)
        self.client = store.client

    def _whole(self, namespace):
        """The pools of ``namespace`` where a transaction that writes nothing has listed every pool of the store
        (an export, a ``verify`` of every namespace): what such a read asks of one pool, it then asks of the whole
        namespace at once (its IP ranges, its resting addresses, the IP addresses inside its pools' subnets), and
        the answer, kept by ``Client.get``, serves every pool: a few requests per namespace instead of a few per
        pool. Else None: a read of one pool (``info``) or of one namespace asks of that pool alone."""
        tx = self.client.tx
        if tx is None or tx.write or namespace not in tx.enumerated:
            return None
        return tx.listed.get(namespace)

    def _ranges(self, pool, subnet=None):
        """The pool's IP ranges as NetBox holds them: ``(version, first, last, id, prefix length)``, sorted (read
        with the rest of a change by ``NetboxStore.reservation_transaction``, or here)."""
        tx = self.client.tx
        if tx is not None and (pool.namespace, pool.name) in tx.ranges:
            objs = tx.ranges[(pool.namespace, pool.name)]
        else:
            wanted = {'tag': TAG} if self._whole(pool.namespace) else {'tag': TAG, 'cf_netpool_pool': pool.name}
            params = self.client.scoped(pool.namespace, wanted)
            objs = [] if params is None else self.client.all('/ipam/ip-ranges/', params)
        found = []
        for obj in objs:
            if (obj['custom_fields'] or {}).get('netpool_pool') != pool.name:
                continue
            version, first = address_of(obj['start_address'])
            last = address_of(obj['end_address'])[1]
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
        if pool.strategy == 'random':
            raise Unsupported("The NetBox store cannot hand out addresses at random (strategy 'random').")
        tx = self.client.tx
        found, left = [], list(reservations)
        if subnet.version == 4:
            for r in reservations:      # an IPv6 reservation made before 1.1.0 may hold the claim they take
                self.client.reclaim(r.namespace, r.pool, r.owner, r.key)
        for version, first, last, ident, _length in self._ranges(pool, subnet):
            if not left:
                break
            if not tx.commit:
                got = self._predict(version, first, last, ident, len(left))
            else:
                if tx.ops or tx.freed:
                    # NetBox hands out what it holds free: first send what this transaction wrote so far (statics
                    # placed, addresses freed); a failure later undoes them (``_undo``)
                    self.client.send(tx)
                got = self._post(pool, subnet, ident, left)
            found += got
            left = left[len(got):]
        return found

    def _predict(self, version, first, last, ident, count):
        """Check mode: the ``count`` addresses of range ``ident`` a real run would hand out, those this transaction
        predicted, placed or let rest already left aside and those it freed counted in."""
        tx = self.client.tx
        held = set((r.version, r.address) for r in tx.reservations.values() if r is not None)
        taken = set(n for v, n in tx.predicted | held if v == version and first <= n <= last)
        answer = self.client.get('/ipam/ip-ranges/%d/available-ips/' % ident, {'limit': count + len(taken)})
        free = [n for v, n in tx.freed if v == version and first <= n <= last]
        free = sorted(set(free + [address_of(a['address'])[1] for a in answer]) - taken)[:count]
        tx.predicted.update((version, n) for n in free)
        return free

    def _post(self, pool, subnet, ident, reservations):
        """Allocate addresses of range ``ident`` to as many of ``reservations`` as it has free: their addresses."""
        path = '/ipam/ip-ranges/%d/available-ips/' % ident
        bodies = []
        for reservation in reservations:
            r = reservation.copy()
            r.version = subnet.version
            body = claim_body(r, changelog_message({'object': 'reservation', 'action': 'reserve',
                                                    'namespace': r.namespace, 'pool': r.pool, 'owner': r.owner,
                                                    'key': r.key}))
            body['prefix_length'] = subnet.prefix_length
            bodies.append(body)
        try:
            made = self.client.request('POST', path, body=bodies, ok=(200, 201)).json()
        except Refused as e:
            if e.status == 409:         # fewer free than asked: ask how many, take those
                free = len(self.client.get(path, {'limit': len(bodies)}))
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
                return [self._adopt(pool, subnet, reservations[0])]     # another process reserved it meanwhile
            raise
        found = []
        for obj in made:
            r = reservation_of(pool.namespace, dict(obj, custom_fields=obj.get('custom_fields') or {}))
            r.sent = True
            self.client.tx.reservations[r.ident] = r
            found.append(r.address)
        return found

    def _adopt(self, pool, subnet, reservation):
        """The address of a reservation another process made meanwhile (NetBox refused this one's claim)."""
        holders = [o for o in self.client.by_claim(*reservation.ident[:4], fresh=True)
                   if address_of(o['address'])[0] == subnet.version]
        if not holders:
            raise StoreBusy('NetBox refused a second claim on %s/%s/%s/%s (IPv%d) but shows none: try again.'
                            % (reservation.ident[:4] + (subnet.version,)))
        r = reservation_of(pool.namespace, holders[0])
        r.sent = True
        self.client.tx.reservations[r.ident] = r
        reservation.metadata, reservation.created_at = r.metadata, r.created_at
        return r.address

    def take(self, pool, version, n):
        tx = self.client.tx
        for member in Tree.of(self.store, pool.namespace).related(pool):
            pending = tx.resting.pop((member.namespace, member.name, version, n), None)
            if pending is not None:     # a rest this transaction was to make (a lease ran out): not made now
                for kept in tx.ops:
                    if kept[0] is pending[1]:
                        kept[0] = _nothing
            for v, n, until, ident in self._resting(member, v_n=(version, n)):
                def send(message, member=member, v=v, n=n, until=until, ident=ident):
                    self.client.delete_address(ident, message)
                    self.client.undoable(message, functools.partial(self._rest, member, v, n, until))
                self.client.later(send, frees=(v, n))

    def give_back(self, pool, version, n, until=None):
        if until is None:
            return      # the IP address is deleted: NetBox hands it out again
        self.client.tx.freed.discard((version, n))      # it rests: NetBox will not hand it out
        rest = functools.partial(self._rest, pool, version, n, until)
        self.client.tx.resting[(pool.namespace, pool.name, version, n)] = (until, rest)
        self.client.later(rest)

    def _rest(self, pool, version, n, until, message):
        """Make the IP address that keeps ``n`` resting in ``pool`` until ``until``."""
        subnet = pool.subnet_of(version, n)
        length = subnet.prefix_length if subnet is not None else (32 if version == 4 else 128)
        self.client.request('POST', '/ipam/ip-addresses/', body={
            'address': address_cidr(version, n, length), 'vrf': self.client.vrf(pool.namespace, make=True),
            'status': 'deprecated', 'tags': [{'slug': TAG}],
            'description': 'netpool: resting in %s/%s until %s' % (pool.namespace, pool.name, until),
            'custom_fields': {'netpool_pool': pool.name, 'netpool_expires': netbox_time(until)},
            'changelog_message': message})

    def _resting(self, pool, due=None, v_n=None):
        if due is not None and v_n is None and self.client.tx is not None:
            objs = self.client.due(pool.namespace, due)
        else:
            params = {'status': 'deprecated', 'cf_netpool_pool': pool.name}
            if due is None and v_n is None and self._whole(pool.namespace):
                params = {'status': 'deprecated', 'cf_netpool_pool__empty': 'false'}    # the namespace's rests
            if due is not None:
                params.update(expiring(due))
            if v_n is not None:
                params['address'] = iv.to_str(*v_n)
            params = self.client.scoped(pool.namespace, params)
            objs = [] if params is None else self.client.all('/ipam/ip-addresses/', params)
        found = []
        for obj in objs:
            cf = obj['custom_fields'] or {}
            if obj['status']['value'] != 'deprecated' or cf.get('netpool_pool') != pool.name or cf.get('netpool_claim'):
                continue
            until = (cf.get('netpool_expires') or '').replace('+00:00', 'Z')
            if due is None or until <= due:
                found.append(address_of(obj['address']) + (until, obj['id']))
        return sorted(found)

    def resting(self, pool, due=None):
        return [(v, n, until) for v, n, until, _id in self._resting(pool, due)]

    def rests(self, pool, version, n):
        tx = self.client.tx
        pending = tx.resting.get((pool.namespace, pool.name, version, n)) if tx is not None else None
        if pending is not None:         # made by this transaction, not sent yet
            return pending[0]
        found = self._resting(pool, v_n=(version, n))
        return found[0][2] if found else None

    def end_rests(self, pool, now):
        for v, n, _until, ident in self._resting(pool, due=now):
            self.client.later(functools.partial(self.client.delete_address, ident), frees=(v, n))

    def rebuild(self, pool):
        """Make the pool's IP ranges what its subnets may hand out (sent when the transaction commits).

        NetBox's IP ranges hold at most 2**32 - 1 addresses: a larger span (an IPv6 subnet left without
        ranges) is ``unsupported``, refused before anything is sent."""
        current = self.store.get_pool(pool.namespace, pool.name)
        if current is None:
            return
        tree = Tree.of(self.store, pool.namespace)
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
        tx = self.client.tx
        if not tx.rebuilt:
            self.client.later(self._send_ranges, last=True)
        tx.rebuilt[(current.namespace, current.name)] = (current, wanted)

    def _send_ranges(self, message):
        """Make the IP ranges of the pools rebuilt in this transaction what they should be: NetBox refuses
        overlapping ranges in a VRF, so every range that goes is deleted first, then masks are changed, then
        the new ranges made (a child carved out of its parent takes a part of the parent's old range)."""
        rebuilt, self.client.tx.rebuilt = self.client.tx.rebuilt, {}
        plans = []
        for pool, wanted in rebuilt.values():
            have = dict(((v, a, b), (ident, length)) for v, a, b, ident, length in self._ranges(pool))
            wanted = dict(((v, a, b), length) for v, a, b, length in wanted)
            for span in sorted(set(have) - set(wanted)):
                self.client.request('DELETE', '/ipam/ip-ranges/%d/' % have[span][0], body={'changelog_message': message})
            plans.append((pool, have, wanted))
        for pool, have, wanted in plans:
            vrf = self.client.vrf(pool.namespace, make=True)
            for (v, a, b), length in sorted(wanted.items()):
                body = {'start_address': address_cidr(v, a, length), 'end_address': address_cidr(v, b, length),
                        'changelog_message': message}
                if (v, a, b) not in have:
                    body.update({'vrf': vrf, 'status': 'active', 'tags': [{'slug': TAG}],
                                 'description': 'netpool %s/%s' % (pool.namespace, pool.name),
                                 'custom_fields': {'netpool_pool': pool.name}})
                    self.client.request('POST', '/ipam/ip-ranges/', body=body)
                elif have[(v, a, b)][1] != length:       # its subnet was resized: the same span, another mask
                    self.client.request('PATCH', '/ipam/ip-ranges/%d/' % have[(v, a, b)][0], body=body)

    def _handing_out(self, pool):
        """The pool's IP ranges as ``_ranges`` has them, or those a rebuild in this transaction makes at its commit."""
        rebuilt = self.client.tx.rebuilt.get((pool.namespace, pool.name)) if self.client.tx is not None else None
        if rebuilt is not None:
            return sorted((v, a, b, None, length) for v, a, b, length in rebuilt[1])
        return self._ranges(pool)

    def _inside(self, pool, ranges):
        """Every IP address NetBox has in the subnets of ``pool`` that hold one of its IP ranges ``ranges``: asked
        per subnet, or in a read of the whole namespace with its other pools' subnets (``_whole``). Each question is
        asked once in a transaction that writes nothing (``Client.get``: ``verify`` asks ``spans`` and
        ``unmanaged``)."""
        whole = self._whole(pool.namespace) or {}
        asked = sorted(set(s.cidr for p in whole.values() for s in p.subnets))
        found = []
        for subnet in pool.subnets:
            if not any(v == subnet.version and subnet.first <= a <= subnet.last for v, a, _b, _i, _l in ranges):
                continue
            if subnet.cidr in asked:      # asked with the namespace's other subnets: NetBox's parent takes several
                chunk = asked.index(subnet.cidr) // PARENTS
                params = {'parent': asked[chunk * PARENTS:(chunk + 1) * PARENTS]}
            else:
                params = {'parent': subnet.cidr}
            params = self.client.scoped(pool.namespace, params)
            for obj in [] if params is None else self.client.all('/ipam/ip-addresses/', params):
                v, n = address_of(obj['address'])
                if v == subnet.version and subnet.first <= n <= subnet.last:
                    found.append(obj)
        return found

    def unmanaged(self, pool):
        """The IP addresses NetBox holds inside the pool's IP ranges that are not this collection's: neither a
        reservation (a claim) nor a rest of one of its pools. Made by hand in NetBox or by another tool: NetBox will
        not hand them out, and no rebuild of the ranges changes that."""
        ranges = self._handing_out(pool)
        found = set()
        for obj in self._inside(pool, ranges):
            cf = obj['custom_fields'] or {}
            status = (obj.get('status') or {}).get('value')
            if cf.get('netpool_claim') or (status == 'deprecated' and cf.get('netpool_pool')):
                continue
            v, n = address_of(obj['address'])
            if any(rv == v and a <= n <= b for rv, a, b, _i, _l in ranges):
                found.add((v, n))
        return sorted(found)

    def spans(self, pool, version=None, lo=None, hi=None):
        """What NetBox itself would hand out: the pool's IP ranges as NetBox holds them, less every IP address
        NetBox has inside them (reservations, rests, and any made by hand). Not derived from the pool: ``verify``
        compares it with what the pool derives, so a hand edit of a range or an address in NetBox shows."""
        ranges = self._handing_out(pool)
        taken = {}
        for obj in self._inside(pool, ranges):
            v, n = address_of(obj['address'])
            taken.setdefault(v, []).append((n, n))
        spans = []
        for v, a, b, _ident, _length in ranges:
            spans += [(v, first, last) for first, last in iv.subtract([(a, b)], sorted(taken.get(v, [])))]
        # what this transaction changed and has not sent yet (check mode, or before its commit)
        tx = self.client.tx
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
