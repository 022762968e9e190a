# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The JSON store's document: its shape in memory (``State``), the text it is written as, its migrations and
the three-way merge of two branches of it (``merge``, for git).

This is a private module: it may change at any time. No file is touched here: reading and writing the file,
its lock and its durability are ``_json``'s. The schema version is read from ``_base`` when a document is
written, so one place says which version this collection writes.
"""

import bisect
import json

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._space import _derive
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Pool
from ansible_collections.netpool.ipam.plugins.module_utils._space._tree import footprint
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _base


#: what reading a hand-edited or damaged document as netpool.ipam data raises
DAMAGE = (KeyError, ValueError, TypeError, AttributeError)


#: the fields of a stored reservation that are read without parsing it, and the types they may have
_RESERVATION_FIELDS = (('namespace', str), ('pool', str), ('owner', str), ('key', str), ('address', str),
                       ('static', bool), ('metadata', dict), ('created_at', (str, type(None))),
                       ('updated_at', (str, type(None))), ('expires_at', (str, type(None))))


def check_reservation(data):
    """Raise ``ValueError`` (a damaged document) for a reservation entry that lacks a field or holds one of
    the wrong type: its fields are read (filtered, compared) long before the entry is parsed."""
    if not isinstance(data, dict):
        raise ValueError('a reservation entry is not an object: %r' % (data,))
    for field, kind in _RESERVATION_FIELDS:
        if field not in data or not isinstance(data[field], kind):
            raise ValueError('reservation %s/%s owner %s key %s: %s is %s' % (
                data.get('namespace'), data.get('pool'), data.get('owner'), data.get('key'), field,
                'missing' if field not in data else 'not a %s but %r' % (
                    kind.__name__ if isinstance(kind, type) else 'string', data[field])))


def _key(value):
    return json.dumps(value)


def _block(indent, items, render):
    """A JSON object laid out one key per line (sorted), each value rendered by ``render(key, indent)``."""
    if not items:
        return '{}'
    pad = ' ' * indent
    inner = ',\n'.join('%s  %s: %s' % (pad, _key(k), render(k, indent + 2)) for k in sorted(items))
    return '{\n%s\n%s}' % (inner, pad)


def _list(indent, lines):
    """A JSON list laid out one item (already serialised) per line."""
    if not lines:
        return '[]'
    pad = ' ' * indent
    return '[\n%s\n%s]' % (',\n'.join(pad + '  ' + line for line in lines), pad)


def _duplicates(holders):
    """``holders``: (namespace, version, address) -> [identities]. The message for those held twice."""
    twice = sorted((k, sorted(v)) for k, v in holders.items() if len(v) > 1)
    if not twice:
        return None
    lines = []
    for (namespace, version, address), idents in twice[:10]:
        lines.append('%s in namespace %s is held by %s' % (
            iv.to_str(version, address), namespace,
            ' and by '.join("pool %s owner %s key %s" % ident[1:4] for ident in idents)))
    return '; '.join(lines) + ('; and %d more' % (len(twice) - 10) if len(twice) > 10 else '')


def _overlaps(pools):
    """``pools``: the pools of one namespace. The message for subnets (ranges of a child by ranges) of two pools
    that overlap, where neither
    pool is an ancestor of the other (a child pool lies inside its parent by design), or None."""
    parent_of = dict((p.name, p.parent) for p in pools)

    def ancestors(name):
        found = []
        while parent_of.get(name) is not None and parent_of[name] not in found:
            name = parent_of[name]
            found.append(name)
        return found

    lines, active = [], []
    # a child by ranges takes its ranges of its parent's cidr, any other pool its subnets whole
    subnets = sorted((v, a, b, p.name, iv.format_span(v, a, b) if p.by_ranges else
                      next(s.cidr for s in p.subnets if s.covers(v, a, b)))
                     for p in pools for v, a, b in footprint(p))
    for version, first, last, name, cidr in subnets:
        active = [a for a in active if a[0] == version and a[2] >= first]
        for _v, _f, _l, other, other_cidr in active:
            if other != name and other not in ancestors(name) and name not in ancestors(other):
                lines.append('pool %s (%s) and pool %s (%s) overlap in %s' % (
                    other, other_cidr, name, cidr, iv.format_span(version, first, min(last, _l))))
        active.append((version, first, last, name, cidr))
    if not lines:
        return None
    return '; '.join(lines[:10]) + ('; and %d more' % (len(lines) - 10) if len(lines) > 10 else '')


class Damaged(Exception):
    """A damaged entry of the document: ``what`` names it, ``error`` says what is wrong."""

    def __init__(self, what, error):
        super(Damaged, self).__init__(what)
        self.what = what
        self.error = error


def damage(what, error):
    """What is wrong with a damaged entry: ``what`` names it (or is ''), ``error`` is what reading it raised."""
    return what + ('the key %s is missing' % error if isinstance(error, KeyError)
                   else '%s: %s' % (type(error).__name__, error))


class Refused(Exception):
    """A document the JSON store refuses to read (``read``). ``kind`` says why: ``held_twice`` (one address of a
    namespace given to two reservations), ``overlap`` (two pools of a namespace overlap, neither the other's
    ancestor) or ``damaged`` (an entry that cannot be read as netpool.ipam data); ``detail`` names them: the
    address with both holders, the pools with their subnets and what they share, the entry and what is wrong."""

    def __init__(self, kind, detail):
        super(Refused, self).__init__('%s: %s' % (kind, detail))
        self.kind = kind
        self.detail = detail


class State(object):
    """The document in memory, with the indexes the store interface needs.

    The document (schema version 2 and 3) holds what was declared and reserved, grouped so that changes to two
    pools never touch one line or one insertion point (two git branches that change different pools merge
    cleanly): ``pools`` -> namespace -> pool -> {``pool``, ``released``, ``reservations`` sorted by owner and
    key}; ``history`` -> namespace -> pool -> owner ("" for the pool's own events) -> entries, oldest first;
    ``resting`` (only when there are any) -> namespace -> pool -> the addresses a deleted pool left resting, which
    a pool created later with that name starts with (a collection that does not know the key ignores it).
    Free spans are derived when the document is read (``_space._derive.derive``), never stored."""

    def __init__(self, document):
        self.pools = {}          # (namespace, name) -> pool data
        self.parsed = {}         # (namespace, name) -> Pool, while unchanged
        self.free = {}           # (namespace, pool) -> sorted [(version, first, last)]
        self.released = {}       # (namespace, pool) -> {(version, address): until}
        self.reservations = {}   # (namespace, pool, owner, key, version) -> reservation data
        self.places = {}         # identity -> (version, address)
        self.holders = {}        # (namespace, version, address) -> identity
        self.history = {}        # (namespace, pool, owner or '') -> [entry]
        self.addressed = None    # (namespace, address) -> [entry], made when first asked for (``all_history``)
        self.last_id = 0
        self.lines = {}          # identity or (history group, index) -> the item serialised (items rarely change)
        self.rendered = {}       # history group -> (its length, its list as text)
        twice = {}
        for namespace, pools in _items(document.get('pools', {})):
            for name, block in _items(pools):
                ident = (namespace, name)
                data = dict(block['pool'])
                if (data['namespace'], data['name']) != ident:
                    raise ValueError('pool %s/%s is filed under %s/%s' % (data['namespace'], data['name'],
                                                                          namespace, name))
                self.pools[ident] = data
                self.released[ident] = _released(block.get('released', []))
                for r in block.get('reservations', []):
                    check_reservation(r)
                    if (r['namespace'], r['pool']) != ident:
                        raise ValueError('a reservation of pool %s/%s is filed under pool %s/%s'
                                         % (r['namespace'], r['pool'], namespace, name))
                    address = iv.parse_address(r['address'])
                    rid = (r['namespace'], r['pool'], r['owner'], r['key'], address.version)
                    if rid in self.reservations:
                        raise ValueError('pool %s/%s lists owner %s key %s twice (IPv%d)' % rid)
                    twice.setdefault((namespace, address.version, int(address)), []).append(rid)
                    self.put(r, address.version, int(address))
        for namespace, pools in _items(document.get('resting', {})):
            for name, released in _items(pools):
                if (namespace, name) not in self.pools:
                    self.released[(namespace, name)] = _released(released)
        self.duplicates = _duplicates(twice)
        self.overlaps = []
        for namespace, pools in _items(document.get('history', {})):
            for name, owners in _items(pools):
                for owner, entries in _items(owners):
                    if not isinstance(entries, list):
                        raise ValueError('the history of %s/%s %s is not a list' % (namespace, name, owner))
                    self.history[(namespace, name, owner)] = list(entries)
                    for entry in entries:
                        self.last_id = max(self.last_id, entry['id'])
        if not self.duplicates:
            self.derive_free()

    def derive_free(self):
        """Every pool's free spans, from its subnets, the reservations and the resting addresses."""
        by_namespace, held, resting = {}, {}, {}
        for (namespace, _name) in self.pools:
            by_namespace.setdefault(namespace, [])
        for ident in sorted(self.pools):
            try:
                pool = Pool.from_data(self.pools[ident])
            except DAMAGE as e:
                raise Damaged('pool %s/%s: ' % ident, e)
            self.parsed[ident] = pool
            by_namespace[ident[0]].append(pool)
            for (v, n) in self.released[ident]:
                resting.setdefault(ident[0], {}).setdefault(v, []).append(n)
        for (namespace, v, n) in self.holders:
            held.setdefault((namespace, v), []).append(n)
        for addresses in held.values():
            addresses.sort()

        self.overlaps = ['namespace %s: %s' % (namespace, found) for namespace, found in sorted(
            (namespace, _overlaps(pools)) for namespace, pools in by_namespace.items()) if found]
        if self.overlaps:
            return
        for namespace, pools in by_namespace.items():
            def holding(version, first, last, namespace=namespace):
                addresses = held.get((namespace, version), [])
                return addresses[bisect.bisect_left(addresses, first):bisect.bisect_right(addresses, last)]
            for pool in pools:
                self.free[(namespace, pool.name)] = _derive.derive(pool, pools, holding,
                                                                   resting.get(namespace, {}))

    def put(self, data, version, address):
        ident = (data['namespace'], data['pool'], data['owner'], data['key'], version)
        self.drop(ident)
        self.reservations[ident] = data
        self.places[ident] = (version, address)
        self.holders[(ident[0], version, address)] = ident

    def drop(self, ident):
        self.lines.pop(ident, None)
        if self.reservations.pop(ident, None) is not None:
            version, address = self.places.pop(ident)
            del self.holders[(ident[0], version, address)]

    def add_history(self, entry):
        self.last_id += 1
        entry['id'] = self.last_id
        self.history.setdefault((entry['namespace'], entry['pool'] or '', entry['owner'] or ''), []).append(entry)
        if self.addressed is not None and entry.get('address'):
            self.addressed.setdefault((entry['namespace'], entry['address']), []).append(entry)

    def all_history(self, group=None, address=None):
        """Every entry, oldest first (by time, then id: two merged branches may have given one id twice); with
        ``group`` (namespace, pool or '', owner or ''), those of that one group (a pool's, or an owner's in it); with
        ``address`` (namespace, address), those naming that address in the namespace."""
        if address is not None:
            if self.addressed is None:
                self.addressed = {}
                for entries in self.history.values():
                    for e in entries:
                        if e.get('address'):
                            self.addressed.setdefault((e['namespace'], e['address']), []).append(e)
            entries = list(self.addressed.get(address, ()))
        elif group is not None:
            entries = list(self.history.get(group, ()))
        else:
            entries = [e for group in self.history.values() for e in group]
        entries.sort(key=lambda e: (e['time'], e['id'], e['namespace'], e['pool'] or '', e['owner'] or ''))
        return entries

    def _line(self, ident, item):
        line = self.lines.get(ident)
        if line is None:
            line = self.lines[ident] = json.dumps(item, sort_keys=True)
        return line

    def document(self):
        """The document as text: one line per pool, reservation and history entry, keys sorted."""
        pools, history = {}, {}
        for ident in self.pools:
            pools.setdefault(ident[0], set()).add(ident[1])
        for group in self.history:
            history.setdefault(group[0], {}).setdefault(group[1], set()).add(group[2])
        by_pool = {}
        for ident in self.reservations:
            by_pool.setdefault(ident[:2], []).append(ident)

        resting = {}
        for ident, addresses in self.released.items():
            if ident not in self.pools and addresses:
                resting.setdefault(ident[0], {})[ident[1]] = json.dumps(self._resting(ident))

        def pool_block(namespace, name, indent):
            ident = (namespace, name)
            released = self._resting(ident)
            rows = [self._line(i, self.reservations[i]) for i in sorted(by_pool.get(ident, []))]
            parts = {'pool': json.dumps(self.pools[ident], sort_keys=True), 'released': json.dumps(released),
                     'reservations': _list(indent + 2, rows)}
            return _block(indent, parts, lambda k, _i: parts[k])

        def history_block(namespace, name, indent):
            def entries(owner, inner):     # a group only grows: rendered again when it did
                group = (namespace, name, owner)
                items = self.history[group]
                done = self.rendered.get(group)
                if done is None or done[0] != len(items):
                    done = self.rendered[group] = (len(items), _list(
                        inner, [self._line((group, i), e) for i, e in enumerate(items)]))
                return done[1]
            return _block(indent, history[namespace][name], entries)

        text = _block(0, dict({'history': 0, 'pools': 0, 'schema_version': 0}, **({'resting': 0} if resting else {})),
                      lambda k, indent: (
            _block(indent, history, lambda ns, i: _block(i, history[ns], lambda n, j: history_block(ns, n, j)))
            if k == 'history' else
            _block(indent, pools, lambda ns, i: _block(i, pools[ns], lambda n, j: pool_block(ns, n, j)))
            if k == 'pools' else
            _block(indent, resting, lambda ns, i: _block(i, resting[ns], lambda n, _j: resting[ns][n]))
            if k == 'resting' else str(_base.SCHEMA_VERSION)))
        return text + '\n'

    def _resting(self, ident):
        return [{'address': iv.to_str(v, n), 'until': until}
                for (v, n), until in sorted(self.released.get(ident, {}).items())]


def _released(entries):
    """The resting addresses of a document's list: {(version, address): until}."""
    return dict((tuple(iv.parse_range(r['address'])[:2]), r['until']) for r in entries)


def _items(mapping):
    if not isinstance(mapping, dict):
        raise ValueError('expected an object, got %r' % (mapping,))
    return sorted(mapping.items())


def migrate_1(document):
    """Schema version 1 (one list each of pools with their free spans, reservations and history) to 2:
    grouped per pool, free spans dropped (they are derived)."""
    pools, history = {}, {}
    for data in document.get('pools', []):
        data = dict(data)
        data.pop('free', None)
        released = data.pop('released', [])
        block = {'pool': data, 'released': released, 'reservations': []}
        pools.setdefault(data['namespace'], {})[data['name']] = block
    for r in document.get('reservations', []):
        check_reservation(r)
        pools[r['namespace']][r['pool']]['reservations'].append(r)
    for entry in document.get('history', []):
        history.setdefault(entry['namespace'], {}).setdefault(entry['pool'] or '', {}).setdefault(
            entry['owner'] or '', []).append(entry)
    return {'schema_version': 2, 'pools': pools, 'history': history}


def migrate_2(document):
    """Schema version 2 to 3: the same document (version 3 added indexes to the SQL stores only)."""
    return dict(document, schema_version=3)


def migrate_3(document):
    """Schema version 3 to 4: the same document (version 4 lets an owner and key hold one reservation of each
    family, ``family: dual``; a document of version 3 holds at most one)."""
    return dict(document, schema_version=4)


#: schema version -> function(document) bringing it to the next version
MIGRATIONS = {1: migrate_1, 2: migrate_2, 3: migrate_3}


def _migrated(document):
    """A parsed document brought to this collection's schema version (``MIGRATIONS``); ValueError for one that
    is not a netpool.ipam document, or is newer than this collection."""
    version = document.get('schema_version') if isinstance(document, dict) else None
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= _base.SCHEMA_VERSION:
        raise ValueError('not a netpool.ipam JSON document of a schema version up to %d' % _base.SCHEMA_VERSION)
    while version < _base.SCHEMA_VERSION:
        document = MIGRATIONS[version](document)
        version += 1
    return document


def _objects(document):
    """A document as objects by identity: ('pool', ns, name), ('released', ns, pool, address) and
    ('reservation', ns, pool, owner, key, 'ipv4' or 'ipv6') -> their stored value as text; and history group -> entries as text."""
    objects, history = {}, {}
    for namespace, pools in _items(document.get('pools', {})):
        for name, block in _items(pools):
            objects[('pool', namespace, name)] = json.dumps(block['pool'], sort_keys=True)
            for r in block.get('released', []):
                objects[('released', namespace, name, r['address'])] = json.dumps(r, sort_keys=True)
            for r in block.get('reservations', []):
                objects[('reservation', namespace, name, r['owner'], r['key'],
                         'ipv%d' % iv.parse_address(r['address']).version)] = json.dumps(r, sort_keys=True)
    for namespace, pools in _items(document.get('resting', {})):
        for name, released in _items(pools):
            for r in released:
                objects[('released', namespace, name, r['address'])] = json.dumps(r, sort_keys=True)
    for namespace, pools in _items(document.get('history', {})):
        for name, owners in _items(pools):
            for owner, entries in _items(owners):
                history[(namespace, name, owner)] = [json.dumps(e, sort_keys=True) for e in entries]
    return objects, history


def read(document):
    """A parsed document of this collection's schema version (older ones migrated first) as the JSON store reads
    it: its ``State``; ``Refused`` for one the store refuses. The one check of a document: the store runs it on
    every read (``_json``), and ``merge`` on what it merged, before the git merge driver writes it."""
    try:
        state = State(document)
    except Damaged as e:
        raise Refused('damaged', damage(e.what, e.error))
    except DAMAGE as e:
        raise Refused('damaged', damage('', e))
    if state.duplicates:
        raise Refused('held_twice', state.duplicates)
    if state.overlaps:
        raise Refused('overlap', '; '.join(state.overlaps))
    return state


def merge(base, ours, theirs):
    """A three-way merge of three parsed JSON store documents, object by object (what ``tools/merge_plan.py``,
    the git merge driver, runs): a pool, a reservation or a resting address changed on one side only takes that
    change; changed alike on both, the change; history entries of both sides are kept. Returns ``(text,
    conflicts)``: the merged document as the store writes it, and the identities changed differently on both
    sides (or a reservation left in a pool the other side deleted); with conflicts the text is None.

    What no object merge sees (each side took the same free address for another owner, pools of the two sides
    now overlap) is seen by the store's own read check (``read``), run on the merged document: ``Refused``, for
    a document the store would refuse to read, is raised rather than the document returned."""
    sides = [_objects(_migrated(d)) for d in (base, ours, theirs)]
    (o, o_history), (a, a_history), (b, b_history) = sides
    merged, conflicts = {}, []
    for ident in sorted(set(o) | set(a) | set(b)):
        was, mine, their = o.get(ident), a.get(ident), b.get(ident)
        if mine == their or their == was:
            value = mine
        elif mine == was:
            value = their
        else:
            conflicts.append(ident)
            continue
        if value is not None:
            merged[ident] = value
    pools, resting = {}, {}
    for ident, value in merged.items():
        if ident[0] == 'pool':
            pools.setdefault(ident[1], {})[ident[2]] = {'pool': json.loads(value), 'released': [],
                                                        'reservations': []}
    for ident, value in sorted(merged.items()):
        if ident[0] == 'pool':
            continue
        block = pools.get(ident[1], {}).get(ident[2])
        if block is None and ident[0] == 'released':        # left resting by a deleted pool
            resting.setdefault(ident[1], {}).setdefault(ident[2], []).append(json.loads(value))
            continue
        if block is None:
            conflicts.append(ident)
            continue
        block['released' if ident[0] == 'released' else 'reservations'].append(json.loads(value))
    history = {}
    for group in sorted(set(o_history) | set(a_history) | set(b_history)):
        was = set(o_history.get(group, []))
        entries = set(a_history.get(group, [])) | set(b_history.get(group, []))
        entries -= set(e for e in was if e not in a_history.get(group, []) or e not in b_history.get(group, []))
        if entries:
            parsed = sorted((json.loads(e) for e in entries), key=lambda e: (e['time'], e['id']))
            history.setdefault(group[0], {}).setdefault(group[1], {})[group[2]] = parsed
    if conflicts:
        return None, conflicts
    return read({'schema_version': _base.SCHEMA_VERSION, 'pools': pools, 'history': history,
                 'resting': resting}).document(), []
