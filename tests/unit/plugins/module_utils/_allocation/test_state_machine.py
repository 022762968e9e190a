# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A stateful fuzz test: random operations on small pools, against a small reference model.

Hypothesis drives ``Service`` with random pool creations and deletions,
child pools carved from any pool (grandchildren too), range and exclusion
edits, dynamic and static reservations (moves, reassigns, forced addresses of
a parent inside its child), releases and sweeps, leases and clock advances,
``owners`` batches (statics and dynamics mixed in any order, two owners asking
for one address, reassign, check mode beside the run), on pools with and
without a reuse delay, in two namespaces. A reference model written with
``ipaddress`` and Python sets (nothing from the collection) predicts every
outcome: the error code, or the address (``first`` strategy: exactly;
``random``: one of the free ones) and ``changed``.

After every step, from ``export_document`` alone:
- no address is held twice in a namespace;
- every held address is inside a subnet of its pool;
- each pool's free spans are exactly allocatable (less its child pools) - held
  in the namespace - waiting out a reuse delay in any pool of the namespace;
- the reservations are the model's (address and expiry);
- ``Service.verify`` finds nothing (``info verify``: the docs/design.md#stores invariants).
Every successful reserve is run again at once: same address, ``changed: false``.
A dynamically taken address is checked against the model at the time it is
taken: in a range, not excluded, not the gateway, not held, not waiting.

Children by ranges: a child holding exactly some ranges of its parent's subnets, its range edits (a
resize under the same rules), its parent resized under it (it follows), carving and forcing inside it.

The pool tree: what an ancestor withholds (its gateway, network and broadcast addresses,
exclusions) is free in no pool below it, derived, never copied into the child; rules edit parents after
carving (gateway, exclusions, resize) and delete child pools whose addresses rest under a reuse delay (they
rest on in the parent); after every step no pool's free space holds an ancestor's withheld address: the free
spans each pool must have leave out what its ancestors withhold (``_withheld_in``), read from the same export as
the checks above (one read of the store for them all, then ``verify``'s).

Runs on SQLite, JSON and PostgreSQL (fewer examples there: ``PG_SETTINGS``), and a shorter run on the real
NetBox the tests start (``NETBOX_SETTINGS``; NetBox emptied before each example). What NetBox cannot hold
(``cannot``: the ``random`` strategy and a child by ranges, docs/stores.md) is never asked of it; everything else
must pass there as anywhere, ``unsupported`` included as a failure. A longer NetBox run, by hand:
``NETPOOL_IPAM_NETBOX_MACHINE=EXAMPLES,STEPS`` (for example ``12,20``) sets its examples and steps.

The budget: tests/support/fuzz.py (``make units`` runs its ``ci`` profile, derandomized; ``make fuzz`` the long,
random one). This test drives ``module_utils`` alone, whose code is the same on every ansible-core: it runs once
per CI run, on the newest.
"""

import copy
import ipaddress
import random
import shutil
import tempfile
import time

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import fuzz, netbox_server, postgresql_server
from ansible_collections.netpool.ipam.tests.support.clock import Clock

SETTINGS = fuzz.budget('machine')

NAMESPACES = ('default', 'lab')
POOLS = ('a', 'b', 'c')
CHILDREN = ('k1', 'k2', 'k3')
PREFIXES = (29, 30, 31, 32, 125, 126, 127)
OWNERS = ('h1', 'h2', 'h3', 'h4')
KEYS = ('default', 'eth1')
#: small subnets; some overlap on purpose (pool_overlap, and invalid_argument inside one pool)
SUBNETS = ('10.0.0.0/29', '10.0.0.8/29', '10.0.0.0/28', '10.0.1.0/30', '10.0.1.4/31', '10.0.1.6/32',
           '2001:db8::/125', '2001:db8::8/126', '2001:db8::/124')
PG_SETTINGS = fuzz.budget('machine-postgresql')
NETBOX_SETTINGS = fuzz.budget('machine-netbox')
TTLS = (None, None, 30, 90)


def _addr(version, n):
    return str(ipaddress.IPv4Address(n) if version == 4 else ipaddress.IPv6Address(n))


def _stamp(t):
    return None if t is None else time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t))


def _parse(text):
    a = ipaddress.ip_address(text)
    return a.version, int(a)


def _span(text):
    """(version, set of ints) of 'A-B'."""
    first, last = text.split('-')
    v, a = _parse(first)
    _v, b = _parse(last)
    return v, set(range(a, b + 1))


class Sub(object):
    """A subnet of the model."""

    def __init__(self, cidr, gateway=False):
        net = ipaddress.ip_network(cidr)
        self.cidr = cidr
        self.version = net.version
        self.prefix = net.prefixlen
        self.first = int(net.network_address)
        self.last = int(net.broadcast_address)
        self.ranges = self.usable()
        self.exclude = set()
        self.gateway = min(self.ranges) if gateway and self.ranges else None

    def usable(self):
        if self.version == 4:
            if self.prefix <= 30:
                return set(range(self.first + 1, self.last))
            return set(range(self.first, self.last + 1))
        return set(range(self.first + 1, self.last + 1))

    def excluded(self, n):
        if n == self.gateway or n in self.exclude:
            return True
        if self.version == 4 and self.prefix <= 30:
            return n in (self.first, self.last)
        return self.version == 6 and self.prefix <= 127 and n == self.first

    def allocatable(self):
        return self.ranges - self.exclude - set([self.gateway])

    def __contains__(self, vn):
        return vn[0] == self.version and self.first <= vn[1] <= self.last


class PoolModel(object):

    def __init__(self, subnets, strategy, delay, parent=None, by_ranges=False):
        self.subnets = subnets
        self.strategy = strategy
        self.delay = delay
        self.parent = parent
        self.by_ranges = by_ranges      # a child by ranges: it holds its ranges of its parent's cidrs, no more

    def subnet_of(self, vn):
        """The subnet holding ``vn`` (of a child by ranges: in its ranges)."""
        return next((s for s in self.subnets if vn in s and (not self.by_ranges or vn[1] in s.ranges)), None)

    def cidr_of(self, vn):
        return next((s for s in self.subnets if vn in s), None)

    def footprint(self):
        """(version, address) the pool takes in its namespace: its subnets whole, or a child by ranges' ranges."""
        if self.by_ranges:
            return set((s.version, n) for s in self.subnets for n in s.ranges)
        return set((s.version, n) for s in self.subnets for n in range(s.first, s.last + 1))


class Expect(Exception):
    """The model's prediction that the call fails with ``code``."""

    def __init__(self, code):
        super(Expect, self).__init__(code)
        self.code = code


class IpamMachine(RuleBasedStateMachine):
    kind = None     # 'sqlite' or 'json', set by the subclasses below
    #: what the store cannot hold (it says ``unsupported``): never asked of it (the contract's ``needs`` words)
    cannot = frozenset()

    def __init__(self):
        super(IpamMachine, self).__init__()
        self.dir = tempfile.mkdtemp(prefix='netpool-fsm-')
        self.clock = Clock(1795000000.0)
        self.store = self._open()
        self.svc = Service(self.store, clock=self.clock, rng=random.Random(20261122))  # replayable draws
        self.pools = {}         # (ns, name) -> PoolModel
        self.res = {}           # (ns, pool, owner, key) -> {'vn': (v, n), 'expires': int or None}
        self.waiting = {}       # (ns, pool) -> {(v, n): until}
        # the history, as far as the returning owner needs it: each entry a number, in order
        self.story = {}         # (ns, pool, owner, key) -> [(entry, 'left' or 'held', (v, n))]
        self.named = {}         # (ns, (v, n)) -> the last entry naming the address in the namespace
        self.entries = 0
        self.returned = None    # the address the last dynamic request of the model got back, or None

    def _open(self):
        return open_store('%s/ipam.%s' % (self.dir, self.kind))

    def teardown(self):
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- the model -----------------------------------------------------------------------------------------
    @property
    def now(self):
        return int(self.clock())

    def _state(self):
        return copy.deepcopy((self.pools, self.res, self.waiting, self.story, self.named))

    def _restore(self, state):
        self.pools, self.res, self.waiting, self.story, self.named = state

    def _note(self, ident, kind, vn):
        """A history entry of ``ident`` naming ``vn``: ``left`` (release, expire) or ``held`` (any other)."""
        self.entries += 1
        self.story.setdefault(ident, []).append((self.entries, kind, vn))
        self.named[(ident[0], vn)] = self.entries

    def _returning(self, ns, name, owner, key, family):
        """The address ``owner`` left resting in the pool under ``key`` (of ``family``, or either with None) and
        gets back (docs/design.md#release), or None: its last entry there left it, it still rests there, nobody in the
        namespace was named with it since, and the pool may still hand it out."""
        pool = self.pools[(ns, name)]
        story = [e for e in self.story.get((ns, name, owner, key), []) if family is None or e[2][0] == family]
        if not pool.delay or not story or story[-1][1] != 'left':
            return None
        entry, _kind, vn = story[-1]
        sub = pool.subnet_of(vn)
        if vn not in self.waiting.get((ns, name), {}) or self.named.get((ns, vn)) != entry or sub is None \
                or vn[1] not in sub.allocatable() - self._carved(ns, name, sub) - self._withheld(ns, name, sub) \
                or vn in self._held_in(ns):
            return None
        return vn

    def _release(self, ident):
        r = self.res.pop(ident)
        self._note(ident, 'left', r['vn'])
        pool = self.pools.get(ident[:2])
        if pool is not None and pool.delay:
            self.waiting.setdefault(ident[:2], {})[r['vn']] = self.now + pool.delay

    def _root(self, ns, name):
        while self.pools[(ns, name)].parent is not None:
            name = self.pools[(ns, name)].parent
        return name

    def _tree(self, ns, name):
        root = self._root(ns, name)
        return sorted(n for (o, n) in self.pools if o == ns and self._root(ns, n) == root)

    def _children(self, ns, name):
        return sorted(n for (o, n), p in self.pools.items() if o == ns and p.parent == name)

    def _ancestors(self, ns, name):
        found = []
        while self.pools[(ns, name)].parent is not None:
            name = self.pools[(ns, name)].parent
            found.append(name)
        return found

    def _withheld(self, ns, name, sub):
        """The addresses of ``sub`` an ancestor withholds: its gateway, network/broadcast, exclusions."""
        return set(n for a in self._ancestors(ns, name) for s in self.pools[(ns, a)].subnets if s.version == sub.version
                   for n in range(max(s.first, sub.first), min(s.last, sub.last) + 1) if s.excluded(n))

    def _expire(self, ns, name):
        """Leases run out and reuse delays end across the whole family of the pool."""
        for member in self._tree(ns, name):
            for ident in sorted(self.res):
                r = self.res[ident]
                if ident[:2] == (ns, member) and r['expires'] is not None and r['expires'] <= self.now:
                    self._release(ident)
            waiting = self.waiting.get((ns, member), {})
            for vn in [vn for vn, until in waiting.items() if until <= self.now]:
                del waiting[vn]

    def _held(self, ns, name):
        return set(r['vn'] for ident, r in self.res.items() if ident[:2] == (ns, name))

    def _held_in(self, ns):
        return set(r['vn'] for ident, r in self.res.items() if ident[0] == ns)

    def _waiting_in(self, ns):
        return set(vn for (o, n), waiting in self.waiting.items() if o == ns and (o, n) in self.pools
                   for vn in waiting)

    def _carved(self, ns, name, sub):
        """The addresses of ``sub`` given to the pool's child pools (a child by ranges: its ranges)."""
        return set(n for child in self._children(ns, name) for v, n in self.pools[(ns, child)].footprint()
                   if v == sub.version and sub.first <= n <= sub.last)

    def _free(self, ns, name, sub):
        held, waiting = self._held_in(ns), self._waiting_in(ns)
        return set(n for n in sub.allocatable() - self._carved(ns, name, sub) - self._withheld(ns, name, sub)
                   if (sub.version, n) not in held and (sub.version, n) not in waiting)

    def _model_reserve(self, ns, name, owner, key, wanted, family, ttl, force, reassign):
        """(address set it may get, changed) or raise Expect. Updates the model."""
        ident = (ns, name, owner, key)
        if (ns, name) not in self.pools:
            raise Expect('pool_not_found')
        cur = self.res.get(ident)
        if cur is not None and ttl is None and (cur['expires'] is None or cur['expires'] > self.now) \
                and wanted in (None, cur['vn']) and family in (None, cur['vn'][0]):
            return set([cur['vn']]), False
        saved = self._state()
        try:
            return self._model_reserve_slow(ns, name, ident, wanted, family, ttl, force, reassign)
        except Expect:
            self._restore(saved)
            raise

    def _model_reserve_slow(self, ns, name, ident, wanted, family, ttl, force, reassign):
        pool = self.pools[(ns, name)]
        self._expire(ns, name)
        cur = self.res.get(ident)
        if wanted is None:
            self.returned = None
            if cur is not None:
                if family is not None and cur['vn'][0] != family:
                    raise Expect('invalid_argument')
                options = set([cur['vn']])
            elif self._returning(ns, name, ident[2], ident[3], family) is not None:
                self.returned = self._returning(ns, name, ident[2], ident[3], family)
                options = set([self.returned])
            else:
                subnets = [s for s in pool.subnets if family is None or s.version == family]
                if not subnets:         # no subnet of the family: no free address of it (docs/design.md#dynamic-reservations)
                    raise Expect('pool_exhausted')
                options = set()
                for sub in subnets:
                    free = self._free(ns, name, sub)
                    if free:
                        chosen = [min(free)] if pool.strategy == 'first' else free
                        options = set((sub.version, n) for n in chosen)
                        break
                if not options:
                    raise Expect('pool_exhausted')
        else:
            options = set([wanted])
            if cur is None or cur['vn'] != wanted:
                sub = pool.subnet_of(wanted)
                if sub is None:
                    raise Expect('address_out_of_pool')
                holder = next((i for i, r in self.res.items() if i[0] == ns and r['vn'] == wanted), None)
                if holder is not None and not reassign:
                    raise Expect('address_in_use')
                if not force and (sub.excluded(wanted[1]) or wanted[1] in self._carved(ns, name, sub)
                                  or wanted[1] in self._withheld(ns, name, sub)):
                    raise Expect('address_excluded')
        return options, cur

    def _commit_reserve(self, ident, vn, cur, ttl, static):
        """Apply a successful reserve that took ``vn`` (the model's side of it); whether it changed anything."""
        ns, name = ident[:2]
        pool = self.pools[(ns, name)]
        expires = self.now + ttl if ttl else (cur['expires'] if cur else None)
        if cur is not None and cur['vn'] == vn and cur['expires'] == expires:
            return False
        holder = next((i for i, r in self.res.items() if i[0] == ns and r['vn'] == vn and i != ident), None)
        if holder is not None:
            del self.res[holder]
            self._note(holder, 'held', vn)      # reassign
        self._note(ident, 'held', vn)
        if cur is not None and cur['vn'] != vn:
            del self.res[ident]
            if pool.delay:
                self.waiting.setdefault((ns, name), {})[cur['vn']] = self.now + pool.delay
        for (o, n), waiting in self.waiting.items():
            if o == ns and (o, n) in self.pools:     # a deleted pool's rests wait for a pool of its name
                waiting.pop(vn, None)
        self.res[ident] = {'vn': vn, 'expires': expires}
        return True

    # -- driving ---------------------------------------------------------------------------------------------
    def _call(self, expected, method, *args, **kwargs):
        """Call the service; when ``expected`` is an error code it must fail with it, and change nothing."""
        if expected is not None:
            before = export_document(self.store)
            try:
                getattr(self.svc, method)(*args, **kwargs)
            except IpamError as e:
                assert e.code == expected, (method, args, kwargs, e.code, e.msg)
                assert 'Traceback' not in e.msg
            else:
                raise AssertionError('%s%r %r should fail with %s' % (method, args, kwargs, expected))
            assert export_document(self.store) == before
            return None
        try:
            return getattr(self.svc, method)(*args, **kwargs)
        except IpamError as e:
            raise AssertionError('%s%r %r failed unexpectedly: %s %s' % (method, args, kwargs, e.code, e.msg))

    @initialize(ns=st.sampled_from(NAMESPACES))
    def first_pool(self, ns):
        self.create_pool(ns, 'a', [0], 'first', 0, True)

    @rule(ns=st.sampled_from(NAMESPACES), name=st.sampled_from(POOLS),
          subnets=st.lists(st.integers(0, len(SUBNETS) - 1), min_size=1, max_size=2, unique=True),
          strategy=st.sampled_from(('first', 'random')), delay=st.sampled_from((0, 0, 60)), gateway=st.booleans())
    def create_pool(self, ns, name, subnets, strategy, delay, gateway):
        if strategy in self.cannot:
            strategy = 'first'
        if (ns, name) in self.pools:
            return
        subs = [Sub(SUBNETS[i], gateway) for i in subnets]
        nets = [ipaddress.ip_network(s.cidr) for s in subs]
        expected = None
        if len(nets) == 2 and nets[0].version == nets[1].version and nets[0].overlaps(nets[1]):
            expected = 'invalid_argument'
        else:
            for (other_ns, _n), other in self.pools.items():
                if other_ns == ns and any(ipaddress.ip_network(o.cidr).version == n.version
                                          and ipaddress.ip_network(o.cidr).overlaps(n)
                                          for o in other.subnets for n in nets):
                    expected = 'pool_overlap'
        spec = [{'cidr': s.cidr, 'gateway': _addr(s.version, s.gateway) if s.gateway is not None else None}
                for s in subs]
        spec = [dict((k, v) for k, v in d.items() if v is not None) for d in spec]
        result = self._call(expected, 'pool', name, namespace=ns, subnets=spec, strategy=strategy, reuse_delay=delay)
        if result is not None:
            assert result['changed'] is True
            self.pools[(ns, name)] = PoolModel(subs, strategy, delay)
            again = self.svc.pool(name, namespace=ns, subnets=spec, strategy=strategy, reuse_delay=delay)
            assert again['changed'] is False

    @rule(data=st.data(), force=st.booleans())
    def delete_pool(self, data, force):
        if not self.pools:
            return
        ns, name = data.draw(st.sampled_from(sorted(self.pools)))
        gone, todo = [], [name]
        while todo:
            gone.append(todo.pop())
            todo += self._children(ns, gone[-1])
        held = [i for i in self.res if i[:2] == (ns, name)]
        expected = 'pool_in_use' if (held or self._children(ns, name)) and not force else None
        result = self._call(expected, 'pool', name, namespace=ns, state='absent', force=force)
        if result is not None:
            assert result['changed'] is True
            self._model_delete(ns, name)

    def _model_delete(self, ns, name):
        """A pool deleted with its children, deepest first: what rests in each (and, for its delay, what it
        held) rests on in its parent until its time (docs/design.md#trees); a pool without a parent keeps it under its name,
        for a pool created again with that name."""
        for child in self._children(ns, name):
            self._model_delete(ns, child)
        pool = self.pools.pop((ns, name))
        waiting = self.waiting.pop((ns, name), {})
        held = [i for i in self.res if i[:2] == (ns, name)]
        moved = dict((vn, until) for vn, until in waiting.items() if until > self.now)
        if pool.delay:
            moved.update((self.res[i]['vn'], self.now + pool.delay) for i in held)
        if pool.parent is not None:
            into = self.waiting.setdefault((ns, pool.parent), {})
            for vn, until in moved.items():
                into.setdefault(vn, until)
        elif moved:
            self.waiting[(ns, name)] = moved
        for ident in held:
            self._note(ident, 'left', self.res[ident]['vn'])
            del self.res[ident]

    @rule(data=st.data(), name=st.sampled_from(CHILDREN), prefix=st.sampled_from(PREFIXES),
          delay=st.sampled_from((0, 60)))
    def create_child(self, data, name, prefix, delay):
        """A child pool carved out of any pool: the first free aligned /prefix of its subnets, clear of its
        other children, of its own reservations and of its own addresses resting under a reuse delay."""
        if not self.pools:
            return
        ns, parent = data.draw(st.sampled_from(sorted(self.pools)))
        if (ns, name) in self.pools:
            return
        fits = [s for s in self.pools[(ns, parent)].subnets if s.prefix <= prefix <= (32 if s.version == 4 else 128)]
        obstacles = self._held(ns, parent) | set(self.waiting.get((ns, parent), {}))
        block = expected = None
        for sub in fits:
            taken = self._carved(ns, parent, sub) | set(n for v, n in obstacles if v == sub.version)
            if self.pools[(ns, parent)].by_ranges:      # a prefix of a child by ranges lies inside its ranges
                taken |= set(range(sub.first, sub.last + 1)) - sub.ranges
            size = 1 << ((32 if sub.version == 4 else 128) - prefix)
            block = next(((sub, start) for start in range(sub.first, sub.last + 1, size)
                          if not any(start <= n < start + size for n in taken)), None)
            if block:
                break
        if not fits:
            expected = 'invalid_argument'
        elif block is None:
            expected = 'pool_exhausted'
        result = self._call(expected, 'pool', name, namespace=ns, parent=parent, prefix_length=prefix,
                            reuse_delay=delay)
        if result is None:
            return
        psub, start = block
        child = Sub('%s/%d' % (_addr(psub.version, start), prefix))
        assert result['pool']['subnets'][0]['cidr'] == child.cidr
        assert result['pool']['subnets'][0]['exclude'] == []        # derived from the parent, never copied
        self.pools[(ns, name)] = PoolModel([child], 'first', delay, parent)
        assert self.svc.pool(name, namespace=ns, parent=parent, prefix_length=prefix)['changed'] is False

    @rule(data=st.data(), kind=st.sampled_from(('allocatable', 'excluded')), state=st.sampled_from(('present', 'absent')),
          outside=st.integers(0, 9))
    def edit_range(self, data, kind, state, outside, picked=None):
        if not self.pools:
            return
        ns, name = picked or data.draw(st.sampled_from(sorted(self.pools)))
        pool = self.pools[(ns, name)]
        sub = data.draw(st.sampled_from(pool.subnets))
        if outside == 0:
            spec, expected = '192.168.77.1-192.168.77.3', 'address_out_of_pool'
        else:
            a = data.draw(st.integers(sub.first, sub.last))
            b = data.draw(st.integers(a, min(sub.last, a + 4)))
            spec, expected = '%s-%s' % (_addr(sub.version, a), _addr(sub.version, b)), None
        if expected is None and pool.by_ranges and kind == 'allocatable':
            expected = self._ranges_edit(ns, name, sub, _span(spec)[1], state)
            if expected == 'unchanged':
                assert self._call(None, 'range', name, spec, namespace=ns, kind=kind, state=state)['changed'] is False
                return
        result = self._call(expected, 'range', name, spec, namespace=ns, kind=kind, state=state)
        if result is None:
            return
        _v, span = _span(spec)
        attr = 'ranges' if kind == 'allocatable' else 'exclude'
        if state == 'present':
            if kind == 'allocatable':
                span &= sub.usable()
            setattr(sub, attr, getattr(sub, attr) | span)
        else:
            setattr(sub, attr, getattr(sub, attr) - span)
        if pool.by_ranges and not sub.ranges:      # a child by ranges left with no range of that subnet
            pool.subnets.remove(sub)
            assert sub.cidr not in [s['cidr'] for s in result['pool']['subnets']]
            return
        got = result['pool']['subnets'][pool.subnets.index(sub)]
        assert set().union(*[_span(r)[1] for r in got[attr]]) == getattr(sub, attr)

    # -- children by ranges -----------------------------------------------------------------------------
    def _live(self, ns):
        """(version, address) -> pool of what is held in ``ns`` and not expired (an expired lease is not held)."""
        return dict((r['vn'], ident[1]) for ident, r in self.res.items()
                    if ident[0] == ns and (r['expires'] is None or r['expires'] > self.now))

    def _clash(self, ns, name, parent, taken):
        """What the ranges ``taken`` ((version, address)) of a child by ranges ``name`` of ``parent`` run into, as
        the service checks them, or None: outside the parent (address_out_of_pool) is checked by the caller; then
        another pool's footprint that is neither above nor below it (pool_overlap), then an address another pool
        holds (address_in_use)."""
        related = set(self._ancestors(ns, parent) + [parent, name])
        below, todo = set(), [name]
        while todo:
            for kid in self._children(ns, todo.pop()):
                if kid not in below:
                    below.add(kid)
                    todo.append(kid)
        related |= below
        for (o, other), pool in self.pools.items():
            if o == ns and other not in related and pool.footprint() & taken:
                return 'pool_overlap'
        if any(pool not in below | set([name]) for vn, pool in self._live(ns).items() if vn in taken):
            return 'address_in_use'
        return None

    def _ranges_edit(self, ns, name, sub, span, state):
        """The error a range edit of child by ranges ``name`` must fail with, 'unchanged', or None (it succeeds)."""
        pool = self.pools[(ns, name)]
        if state == 'present':
            span = span & sub.usable()
            if span <= sub.ranges:
                return 'unchanged'
            parent = self.pools[(ns, pool.parent)]
            if any((sub.version, n) not in parent.footprint() for n in span):
                return 'address_out_of_pool'
            return self._clash(ns, name, pool.parent, set((sub.version, n) for n in span - sub.ranges))
        left = sub.ranges - span
        if left == sub.ranges:
            return 'unchanged'
        if not left and (sub.exclude or all(s is sub or not s.ranges for s in pool.subnets)):
            return 'invalid_argument'       # it would hold nothing, or drop its exclusions
        gone = set((sub.version, n) for n in sub.ranges - left)
        for child in self._children(ns, name):
            if self.pools[(ns, child)].footprint() & gone:
                return 'pool_in_use'
        if any(vn in gone for ident, r in self.res.items() if ident[:2] == (ns, name) for vn in [r['vn']]):
            return 'pool_in_use'
        return None

    @rule(data=st.data(), state=st.sampled_from(('present', 'absent')), outside=st.integers(0, 9))
    def edit_child_ranges(self, data, state, outside):
        """A range edit of a child by ranges: what it holds of its parent grows or shrinks (``edit_range``)."""
        kids = sorted(k for k, p in self.pools.items() if p.by_ranges)
        if kids:
            self.edit_range(data, 'allocatable', state, outside, picked=data.draw(st.sampled_from(kids)))

    @rule(data=st.data(), name=st.sampled_from(CHILDREN), delay=st.sampled_from((0, 60)), two=st.booleans(),
          outside=st.integers(0, 9))
    def create_child_by_ranges(self, data, name, delay, two, outside):
        """A child holding exactly some ranges of its parent's subnets (VIPs beside nodes): clear of the parent's
        other children and of what any pool holds, inside the parent (a parent by ranges: its ranges); a rerun
        with the same ranges changes nothing."""
        if 'ranges' in self.cannot or not self.pools:
            return
        ns, parent = data.draw(st.sampled_from(sorted(self.pools)))
        if (ns, name) in self.pools:
            return
        psubs = self.pools[(ns, parent)].subnets
        picked = data.draw(st.lists(st.sampled_from(psubs), min_size=1, max_size=2 if two else 1, unique_by=id))
        specs, placed = [], []
        for sub in picked:
            a = data.draw(st.integers(sub.first, sub.last))
            b = data.draw(st.integers(a, min(sub.last, a + 3)))
            specs.append('%s-%s' % (_addr(sub.version, a), _addr(sub.version, b)))
            placed.append((sub, set(range(a, b + 1))))
        expected = None
        if outside == 0:
            specs.append('192.168.77.1-192.168.77.3')
            expected = 'address_out_of_pool'
        elif any((sub.version, n) not in self.pools[(ns, parent)].footprint() for sub, span in placed for n in span):
            expected = 'address_out_of_pool'
        elif any(not span & sub.usable() for sub, span in placed):
            expected = 'invalid_argument'       # nothing but its network or broadcast address
        else:
            taken = set((sub.version, n) for sub, span in placed for n in span & sub.usable())
            expected = self._clash(ns, name, parent, taken)
        result = self._call(expected, 'pool', name, namespace=ns, parent=parent, ranges=specs, reuse_delay=delay)
        if result is None:
            return
        subs = []
        for psub in psubs:
            spans = [span for sub, span in placed if sub is psub]
            if spans:
                child = Sub(psub.cidr)
                child.ranges = set().union(*spans) & psub.usable()
                subs.append(child)
        got = result['pool']
        assert got['by_ranges'] is True and [s['cidr'] for s in got['subnets']] == [s.cidr for s in subs]
        assert [set().union(*[_span(r)[1] for r in s['ranges']]) for s in got['subnets']] == [s.ranges for s in subs]
        assert all(s['exclude'] == [] for s in got['subnets'])     # derived from the parent, never copied
        self.pools[(ns, name)] = PoolModel(subs, 'first', delay, parent, by_ranges=True)
        again = self._call(None, 'pool', name, namespace=ns, parent=parent, ranges=specs, reuse_delay=delay)
        assert again['changed'] is False

    def _pick_pool(self, data):
        names = sorted(self.pools) + [('default', 'missing')]
        return data.draw(st.sampled_from(names))

    @rule(data=st.data(), owner=st.sampled_from(OWNERS), key=st.sampled_from(KEYS), ttl=st.sampled_from(TTLS),
          family=st.sampled_from((None, None, 4, 6)))
    def reserve_dynamic(self, data, owner, key, ttl, family):
        ns, name = self._pick_pool(data)
        self._reserve(ns, name, owner, key, None, family, ttl, False, False)

    @rule(data=st.data(), owner=st.sampled_from(OWNERS), key=st.sampled_from(KEYS), ttl=st.sampled_from(TTLS),
          force=st.booleans(), reassign=st.booleans(), outside=st.integers(0, 9))
    def reserve_static(self, data, owner, key, ttl, force, reassign, outside):
        if not self.pools:
            return
        ns, name = data.draw(st.sampled_from(sorted(self.pools)))
        sub = data.draw(st.sampled_from(self.pools[(ns, name)].subnets))
        if outside == 0:
            wanted = (4, int(ipaddress.IPv4Address('192.168.77.9')))
        else:
            wanted = (sub.version, data.draw(st.integers(sub.first, sub.last)))
        self._reserve(ns, name, owner, key, wanted, None, ttl, force, reassign)

    @rule(data=st.data(), owner=st.sampled_from(OWNERS), ttl=st.sampled_from(TTLS))
    def force_into_child(self, data, owner, ttl):
        """A parent's forced address inside one of its child pools (a router, a VIP): the case where one
        address is the business of two pools, and where a reuse delay or a lease must hold across both."""
        parents = sorted(k for k in self.pools if self._children(*k))
        if not parents:
            return
        ns, name = data.draw(st.sampled_from(parents))
        child = self.pools[(ns, data.draw(st.sampled_from(self._children(ns, name))))].subnets[0]
        wanted = (child.version, data.draw(st.integers(child.first, child.last)))
        self._reserve(ns, name, owner, 'default', wanted, None, ttl, True, False)

    def _reserve(self, ns, name, owner, key, wanted, family, ttl, force, reassign):
        ident = (ns, name, owner, key)
        kwargs = dict(key=key, namespace=ns, ttl=ttl, force=force, reassign=reassign,
                      family={None: None, 4: 'ipv4', 6: 'ipv6'}[family],
                      address=_addr(*wanted) if wanted else None)
        try:
            prediction = self._model_reserve(ns, name, owner, key, wanted, family, ttl, force, reassign)
        except Expect as e:
            self._call(e.code, 'reserve', name, owner, **kwargs)
            return
        options, cur = prediction
        result = self._call(None, 'reserve', name, owner, **kwargs)
        vn = _parse(result['reservation']['address'])
        assert vn in options, (vn, options)
        if cur is False:            # the fast path: nothing to do
            changed = False
        else:
            if wanted is None and cur is None:
                sub = self.pools[(ns, name)].subnet_of(vn)
                assert vn[1] in sub.allocatable() and not sub.excluded(vn[1]) and vn[1] != sub.gateway
                assert vn not in self._held_in(ns) and (vn == self.returned or vn not in self._waiting_in(ns))
                assert vn[1] not in self._carved(ns, name, sub)
                assert vn[1] not in self._withheld(ns, name, sub), 'an ancestor withholds %s' % _addr(*vn)
            changed = self._commit_reserve(ident, vn, cur, ttl, wanted is not None)
        assert result['changed'] is changed, (result, changed)
        if ttl is None and wanted is None:
            assert result['reservation']['expires_at'] == _stamp(self.res[ident]['expires'])
        again = self._call(None, 'reserve', name, owner, **kwargs)
        assert (again['changed'], again['reservation']['address']) == (False, result['reservation']['address'])

    @rule(data=st.data(), owner=st.sampled_from(OWNERS), key=st.sampled_from((None,) + KEYS),
          whole_namespace=st.booleans())
    def release(self, data, owner, key, whole_namespace, picked=None):
        ns, name = picked or self._pick_pool(data)
        if whole_namespace:
            key = name = None
        targets = [i for i in self.res if i[0] == ns and (name is None or i[1] == name) and i[2] == owner
                   and (key is None or i[3] == key)]
        result = self._call(None, 'release', ns, pool=name, owner=owner, key=key)
        assert result['changed'] is bool(targets)
        assert sorted((r['pool'], r['owner'], r['key']) for r in result['released']) == sorted(i[1:] for i in targets)
        for ident in targets:
            self._release(ident)

    @rule(data=st.data(), keep=st.lists(st.sampled_from(OWNERS), max_size=3, unique=True), check=st.booleans())
    def sweep(self, data, keep, check):
        if not self.pools:
            return
        ns, name = data.draw(st.sampled_from(sorted(self.pools)))
        targets = [i for i in self.res if i[:2] == (ns, name) and i[2] not in keep]
        before = export_document(self.store) if check else None
        result = self._call(None, 'release', ns, pool=name, keep_owners=keep, check=check)
        assert sorted(r['owner'] for r in result['released']) == sorted(i[2] for i in targets)
        if check:
            assert export_document(self.store) == before
            return
        for ident in targets:
            self._release(ident)

    # -- batches
    @rule(data=st.data(), size=st.integers(1, 4), ttl=st.sampled_from(TTLS), force=st.booleans(),
          reassign=st.sampled_from((False, False, True)), check=st.booleans())
    def reserve_batch(self, data, size, ttl, force, reassign, check):
        """An ``owners`` batch (docs/design.md#batches): statics and dynamics mixed in any order, two owners asking
        for one address (invalid_argument), reassign; all or nothing; check mode predicts the run exactly."""
        if not self.pools:
            return
        ns, name = data.draw(st.sampled_from(sorted(self.pools)))
        pool = self.pools[(ns, name)]
        owners = data.draw(st.lists(st.sampled_from(OWNERS), min_size=1, max_size=size, unique=True))
        batch = []
        for owner in owners:
            vn = None
            if data.draw(st.booleans()):
                sub = data.draw(st.sampled_from(pool.subnets))
                vn = (sub.version, data.draw(st.integers(sub.first, sub.last)))
            batch.append((owner, vn))
        elements = [o if vn is None else {'owner': o, 'address': _addr(*vn)} for o, vn in batch]
        kwargs = dict(namespace=ns, ttl=ttl, force=force, reassign=reassign)
        failed = None
        try:
            predicted = self.svc.reserve_owners(name, elements, check=True, **kwargs) if check else None
            done = self.svc.reserve_owners(name, elements, **kwargs)
        except IpamError as e:
            failed, done = e, None
            assert 'Traceback' not in e.msg
        saved = self._state()
        try:
            changed = self._model_batch(ns, name, batch, done, ttl, force, reassign)
        except Expect as e:
            self._restore(saved)
            assert failed is not None and failed.code == e.code, (elements, kwargs, failed and failed.msg, e.code)
            return
        assert failed is None, (elements, kwargs, failed.code, failed.msg)
        assert done['changed'] is changed, (done, changed)
        if check and pool.strategy == 'first':
            assert [(r['owner'], r['address']) for r in predicted['reservations']] == [
                (r['owner'], r['address']) for r in done['reservations']]
        if ttl is None:
            again = self._call(None, 'reserve_owners', name, elements, **kwargs)
            assert again['changed'] is False and again['reservations'] == done['reservations']

    def _model_batch(self, ns, name, batch, done, ttl, force, reassign):
        """Walk the model through a batch: the statics first (one that takes the address another static of the
        batch leaves after it), then the dynamics in list order, each address the run gave checked against what
        the model allows. Whether it changed anything; raises Expect where the run must fail."""
        statics = [(o, vn) for o, vn in batch if vn is not None]
        if len(set(vn for _o, vn in statics)) < len(statics) or (reassign and len(statics) < len(batch)):
            raise Expect('invalid_argument')

        def unchanged(owner, vn):
            cur = self.res.get((ns, name, owner, 'default'))
            return cur is not None and ttl is None and (cur['expires'] is None or cur['expires'] > self.now) \
                and vn in (None, cur['vn'])
        if all(unchanged(o, vn) for o, vn in batch):
            return False        # a rerun only reads (what ran out is released by the next change)
        self._expire(ns, name)
        got = dict((r['owner'], _parse(r['address'])) for r in done['reservations']) if done else {}
        held = dict((o, self.res[(ns, name, o, 'default')]['vn']) for o, _vn in batch
                    if (ns, name, o, 'default') in self.res)
        leaving = dict((held[o], o) for o, vn in statics if o in held and held[o] != vn)
        changed, pending = False, list(statics)
        while pending:
            waiting = set(o for o, _vn in pending)
            ready = next((p for p in pending if leaving.get(p[1]) not in waiting - set([p[0]])), pending[0])
            pending.remove(ready)
            owner, vn = ready
            _options, cur = self._model_reserve_slow(ns, name, (ns, name, owner, 'default'), vn, None, ttl, force,
                                                     reassign)
            changed = self._commit_reserve((ns, name, owner, 'default'), vn, cur, ttl, True) or changed
        for owner, vn in batch:
            if vn is None:
                options, cur = self._model_reserve_slow(ns, name, (ns, name, owner, 'default'), None, None, ttl,
                                                        False, False)
                chosen = got.get(owner, min(options))
                assert chosen in options, (owner, chosen, options)
                changed = self._commit_reserve((ns, name, owner, 'default'), chosen, cur, ttl, False) or changed
        return changed

    @rule(seconds=st.sampled_from((1, 29, 31, 60, 91, 300)))
    def advance(self, seconds):
        self.clock.advance(seconds)

    # -- the pool tree ------------------------------------------------------------------------------------------
    def _parents(self):
        return sorted(k for k in self.pools if self._children(*k))

    def _a_parent(self, data, top=False):
        """A pool with children (``top``: without a parent itself), carving one first when there is none."""
        def parents():
            return [k for k in self._parents() if not top or self.pools[k].parent is None]
        if not parents() and self.pools:
            self.create_child(data, data.draw(st.sampled_from(CHILDREN)), data.draw(st.sampled_from(PREFIXES)),
                              data.draw(st.sampled_from((0, 60))))
        return data.draw(st.sampled_from(parents())) if parents() else None

    @rule(data=st.data(), inside=st.booleans())
    def parent_gateway(self, data, inside):
        """A pool with children gets a gateway (or another one) after carving, often inside a child: it holds
        in every pool below at once. (Only a top pool: a child's subnet is carved, not given.)"""
        picked = self._a_parent(data, top=True)
        if picked is None:
            return
        ns, name = picked
        pool = self.pools[(ns, name)]
        i = data.draw(st.integers(0, len(pool.subnets) - 1))
        sub = pool.subnets[i]
        kids = [cs for c in self._children(ns, name) for cs in self.pools[(ns, c)].subnets
                if (cs.version, cs.first) in sub]
        lo, hi = (kids[0].first, kids[0].last) if kids and inside else (sub.first, sub.last)
        gateway = data.draw(st.integers(lo, hi))
        spec = [{'cidr': s.cidr} for s in pool.subnets]
        spec[i]['gateway'] = _addr(sub.version, gateway)
        result = self._call(None, 'pool', name, namespace=ns, subnets=spec)
        assert result['changed'] is (sub.gateway != gateway)
        sub.gateway = gateway

    @rule(data=st.data(), state=st.sampled_from(('present', 'present', 'absent')))
    def parent_exclusion(self, data, state):
        """An exclusion of a parent (at any depth) over addresses of one of its children, after carving."""
        picked = self._a_parent(data)
        if picked is None:
            return
        ns, name = picked
        child = self.pools[(ns, data.draw(st.sampled_from(self._children(ns, name))))].subnets[0]
        a = data.draw(st.integers(child.first, child.last))
        b = data.draw(st.integers(a, min(child.last, a + 3)))
        self._call(None, 'range', name, '%s-%s' % (_addr(child.version, a), _addr(child.version, b)), namespace=ns,
                   kind='excluded', state=state)
        sub = self.pools[(ns, name)].cidr_of((child.version, a))
        span = set(range(a, b + 1))
        sub.exclude = sub.exclude | span if state == 'present' else sub.exclude - span

    @staticmethod
    def _landmarks(sub):
        """The network and broadcast (IPv6: subnet-router) addresses and the gateway of a model subnet."""
        found = set([sub.gateway]) if sub.gateway is not None else set()
        if sub.version == 4 and sub.prefix <= 30:
            found |= set([sub.first, sub.last])
        elif sub.version == 6 and sub.prefix <= 127:
            found.add(sub.first)
        return found

    @rule(data=st.data(), wider=st.booleans(), force=st.booleans())
    def resize(self, data, wider, force):
        """A top pool's subnet widened to its supernet or narrowed to one half, under its children and
        reservations. Refusals are checked loosely (one of the codes docs/design.md#pools-and-ranges gives, nothing changed); a
        success must keep every reservation off what the new cidr makes its network, broadcast or gateway
        address (defect 5), and the invariants check the rest."""
        tops = sorted(k for k in self.pools if self.pools[k].parent is None)
        if not tops:
            return
        ns, name = data.draw(st.sampled_from(tops))
        pool = self.pools[(ns, name)]
        i = data.draw(st.integers(0, len(pool.subnets) - 1))
        old = pool.subnets[i]
        net = ipaddress.ip_network(old.cidr)
        if wider:
            new = net.supernet()
        elif net.prefixlen == net.max_prefixlen:
            return
        else:
            new = data.draw(st.sampled_from(list(net.subnets())))
        spec = [{'cidr': s.cidr} for s in pool.subnets]
        spec[i] = {'cidr': str(new)}
        before = export_document(self.store)
        try:
            result = self.svc.pool(name, namespace=ns, subnets=spec, force=force)
        except IpamError as e:
            assert e.code in ('invalid_argument', 'pool_in_use', 'pool_overlap'), (e.code, e.msg)
            assert export_document(self.store) == before
            return
        sub = _doc_sub(result['pool']['subnets'][i])
        landmarks = self._landmarks(sub) - self._landmarks(old)
        held = set(r['vn'] for ident, r in self.res.items()     # an expired lease is not held (docs/design.md#leases-and-ttls)
                   if ident[0] == ns and (r['expires'] is None or r['expires'] > self.now))
        assert not [n for n in landmarks if (sub.version, n) in held], ('left on a landmark', old.cidr, str(new))
        released = set((r['pool'], r['owner'], r['key']) for r in result['released'])
        for ident in [ident for ident in self.res if ident[:2] == (ns, name)]:
            if ident[1:] in released:
                assert force and sub.version == self.res[ident]['vn'][0] and self.res[ident]['vn'] not in sub
                self._note(ident, 'left', self.res[ident]['vn'])
                del self.res[ident]         # released outside every subnet: nothing rests
        pool.subnets[i] = sub
        for child in self._children(ns, name):      # a child by ranges is on its parent's cidrs: it follows
            kid = self.pools[(ns, child)]
            if kid.by_ranges:
                for j, cs in enumerate(kid.subnets):
                    if cs.cidr == old.cidr:
                        moved = Sub(sub.cidr)
                        moved.ranges, moved.exclude = cs.ranges, cs.exclude
                        kid.subnets[j] = moved
                assert [s['cidr'] for s in self.svc.info(ns, pool=child)['pools'][0]['subnets']] == [
                    s.cidr for s in kid.subnets]

    @rule(data=st.data(), force=st.booleans(), release_first=st.booleans())
    def delete_child(self, data, force, release_first):
        """A child pool deleted, mostly one whose addresses rest under its reuse delay: they rest on in its
        parent until their time (docs/design.md#trees), and so do, for its delay, those force releases with it."""
        kids = sorted(k for k in self.pools if self.pools[k].parent is not None)
        if not kids:
            return
        resting = [k for k in kids if self.waiting.get(k)]
        delayed = [k for k in kids if self.pools[k].delay]
        ns, name = data.draw(st.sampled_from(resting or delayed or kids))
        if release_first:       # what its hosts held rests under its reuse delay
            if not any(i[:2] == (ns, name) for i in self.res):
                self._reserve(ns, name, data.draw(st.sampled_from(OWNERS)), 'default', None, None, None, False, False)
            for owner in sorted(set(i[2] for i in self.res if i[:2] == (ns, name))):
                self.release(data, owner, None, False, picked=(ns, name))
        held = [i for i in self.res if i[:2] == (ns, name)]
        expected = 'pool_in_use' if (held or self._children(ns, name)) and not force else None
        if self._call(expected, 'pool', name, namespace=ns, state='absent', force=force) is not None:
            self._model_delete(ns, name)

    # -- invariants ---------------------------------------------------------------------------------------------
    @invariant()
    def store_is_consistent(self):
        doc = export_document(self.store)
        pools = dict(((p['namespace'], p['name']), p) for p in doc['pools'])
        assert set(pools) == set(self.pools)
        held, got = {}, {}
        for r in doc['reservations']:
            vn = _parse(r['address'])
            ident = (r['namespace'], r['pool'], r['owner'], r['key'])
            assert (r['namespace'],) + vn not in held, 'held twice: %s' % r['address']
            held[(r['namespace'],) + vn] = ident
            pool = pools[(r['namespace'], r['pool'])]
            assert any(vn in Sub(s['cidr']) and (not pool.get('by_ranges') or vn[1] in set().union(
                *[_span(x)[1] for x in s['ranges']])) for s in pool['subnets']), '%s is outside pool %s' % (
                r['address'], r['pool'])
            got[ident] = {'vn': vn, 'expires': r['expires_at']}
        want = dict((i, {'vn': r['vn'], 'expires': _stamp(r['expires'])}) for i, r in self.res.items())
        assert got == want
        for (ns, name), pool in pools.items():
            waiting = set(_parse(w['address']) for w in pool['released'])
            assert waiting == set(self.waiting.get((ns, name), {}))
            held_in = set(k[1:] for k in held if k[0] == ns)
            waiting_in = set(_parse(w['address']) for p in pools.values() if p['namespace'] == ns for w in p['released'])
            children = [p for p in pools.values() if p['namespace'] == ns and p['parent'] == name]
            carved = set()
            for child in children:
                for s in child['subnets']:
                    sub = Sub(s['cidr'])
                    if child.get('by_ranges'):      # a child by ranges takes its ranges, no more
                        carved |= set((sub.version, n) for n in set().union(*[_span(x)[1] for x in s['ranges']]))
                    else:
                        carved |= set((sub.version, n) for n in range(sub.first, sub.last + 1))
            expected = set()
            for s in pool['subnets']:
                sub = Sub(s['cidr'])
                ranges = set().union(*[_span(x)[1] for x in s['ranges']])
                exclude = set().union(*[_span(x)[1] for x in s['exclude']])
                gateway = _parse(s['gateway'])[1] if s['gateway'] else None
                expected |= set((sub.version, n) for n in ranges - exclude - set([gateway]))
            expected -= held_in | waiting_in | carved | _withheld_in(pools, ns, name)
            free = set()
            for span in pool['free']:
                v, ns_ = _span(span)
                free |= set((v, n) for n in ns_)
            assert free == expected, (name, sorted(free ^ expected))
        assert self.svc.verify() == {'changed': False, 'problems': [], 'repaired': []}


def _doc_sub(data):
    """A model subnet from an exported subnet."""
    sub = Sub(data['cidr'])
    sub.ranges = set().union(*[_span(x)[1] for x in data['ranges']])
    sub.exclude = set().union(*[_span(x)[1] for x in data['exclude']])
    sub.gateway = _parse(data['gateway'])[1] if data['gateway'] else None
    return sub


def _withheld_in(pools, ns, name):
    """(version, address) of pool ``name`` that an ancestor withholds, from exported pools alone."""
    found, seen, pool = set(), set([name]), pools[(ns, name)]
    mine = [Sub(s['cidr']) for s in pool['subnets']]
    while pool['parent'] is not None and pool['parent'] not in seen:
        seen.add(pool['parent'])
        pool = pools[(ns, pool['parent'])]
        for theirs in map(_doc_sub, pool['subnets']):
            for sub in mine:
                if sub.version == theirs.version:
                    found |= set((sub.version, n) for n in range(max(sub.first, theirs.first),
                                                                 min(sub.last, theirs.last) + 1) if theirs.excluded(n))
    return found


class SqliteMachine(IpamMachine):
    kind = 'sqlite'


class JsonMachine(IpamMachine):
    kind = 'json'


class OnPostgresql(object):
    """A machine on PostgreSQL, each run in a schema of its own, dropped at its end (here and in
    test_state_machine_dual.py)."""

    def _open(self):
        self._schema = postgresql_server.fresh_schema('fsm')
        spec = self._schema.__enter__()[0]    # pylint: disable=unnecessary-dunder-call
        return open_store(spec)

    def teardown(self):
        try:
            super(OnPostgresql, self).teardown()
        finally:
            self._schema.__exit__(None, None, None)


class OnNetbox(object):
    """A machine on the session's real NetBox (tests/support/netbox_server.py), emptied before each example."""

    def _open(self):
        netbox_server.wipe()
        return netbox_server.open_store()


class PostgresqlMachine(OnPostgresql, IpamMachine):
    pass


class NetboxMachine(OnNetbox, IpamMachine):
    cannot = frozenset(['random', 'ranges'])


class TestNetboxStoreStateMachine(object):
    """Named for ``-k TestNetboxStore``: runs in ``make units`` only, like the NetBox conformance suite."""

    def test_netbox_state_machine(self):
        netbox_server.server()      # skips (or fails, NETPOOL_IPAM_TEST_NETBOX=required) where NetBox cannot run
        run_state_machine_as_test(NetboxMachine, settings=NETBOX_SETTINGS)


def test_postgresql_state_machine():
    postgresql_server.require_server()
    run_state_machine_as_test(PostgresqlMachine, settings=PG_SETTINGS)


TestSqliteStateMachine = SqliteMachine.TestCase
TestSqliteStateMachine.settings = SETTINGS
TestJsonStateMachine = JsonMachine.TestCase
TestJsonStateMachine.settings = SETTINGS
