# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A stateful fuzz test of ``family: dual`` beside single-family requests (docs/design.md#dynamic-reservations, #static-reservations, #release).

test_state_machine.py fuzzes one address per ``(namespace, pool, owner, key)``; since ``family: dual`` an owner
and key hold up to two, one of each family. Here hypothesis mixes, on one dual-stack pool (its IPv4 and IPv6
subnets in either order, with or without a reuse delay and a gateway) and a pool with IPv4 only:
- ``family: dual`` for one owner and as an ``owners`` batch (check mode beside the run): an owner keeps what it
  holds of a family, static or not, and the missing halves take free addresses, every IPv4 one in list order,
  then every IPv6 one; one family exhausted fails the whole; a pool without IPv6 is ``invalid_argument``;
- single-family requests on the same owners: dynamic with ``family`` ipv4, ipv6 or none (none acts on what
  the owner holds, IPv4 first; a family the owner does not hold under a key that holds the other one is
  ``invalid_argument``), static (a static address moves the reservation of its family, else the one the owner
  holds of the other family);
- releases by owner, key and family (ipv4, ipv6, dual, none), leases and the clock.
A reference model keyed by ``(pool, owner, key, family)`` (``ipaddress`` and sets, nothing from the collection)
predicts each result: the error code, or the addresses (strategy ``first``: exactly) and ``changed``. After every
step, from ``export_document`` alone: the reservations are the model's, no address is held twice, each pool's free
spans are exactly its allocatable addresses less those held or resting, and ``Service.verify`` finds nothing.
Every successful request is run again at once: the same addresses, ``changed: false``.

SQLite, JSON and PostgreSQL (fewer examples); NetBox (which holds dual as two claims) in ``make units`` only.
How many examples each store runs: tests/support/fuzz.py (``ci``, derandomized, in ``make test``; ``long`` in
``make fuzz``).
"""

import copy
import random
import shutil
import tempfile

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document

from ansible_collections.netpool.ipam.tests.support import fuzz, netbox_server, postgresql_server
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._allocation.test_state_machine import (
    Expect, IpamMachine, OnNetbox, OnPostgresql, Sub, _addr, _parse, _span, _stamp)

SETTINGS = fuzz.budget('dual')
PG_SETTINGS = fuzz.budget('dual-postgresql')
NETBOX_SETTINGS = fuzz.budget('dual-netbox')

NS = 'default'
DUAL, V4 = 'd', 'v4'
#: small subnets, so that a family runs out within a few steps
SUBNETS = {4: '10.0.0.0/29', 6: '2001:db8::/126'}
ONLY4 = '10.0.1.0/30'
OWNERS = ('h1', 'h2', 'h3', 'h4', 'h5')
KEYS = ('default', 'eth1')
TTLS = (None, None, 30, 90)
FAMILY = {None: None, 4: 'ipv4', 6: 'ipv6', 'dual': 'dual'}


class DualMachine(RuleBasedStateMachine):
    kind = None

    def __init__(self):
        super(DualMachine, self).__init__()
        self.dir = tempfile.mkdtemp(prefix='netpool-fsm-dual-')
        self.clock = Clock(1795000000.0)
        self.store = self._open()
        self.svc = Service(self.store, clock=self.clock, rng=random.Random(20261127))
        self.subs = {}          # pool -> [Sub] in pool order
        self.delay = {}         # pool -> reuse delay
        self.res = {}           # (pool, owner, key, version) -> {'n': int, 'expires': int or None}
        self.waiting = {}       # (pool, version, n) -> until
        # the history, as far as the returning owner needs it: each entry a number, in order
        self.story = {}         # (pool, owner, key) -> [(entry, 'left' or 'held', (version, n))]
        self.named = {}         # (version, n) -> the last entry naming the address
        self.entries = 0

    def _open(self):
        return open_store('%s/ipam.%s' % (self.dir, self.kind))

    def teardown(self):
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def now(self):
        return int(self.clock())

    # -- the model -----------------------------------------------------------------------------------------
    def _expire(self, pool):
        """Leases run out and reuse delays end in ``pool`` (its tree: here, the pool alone)."""
        for ident in sorted(i for i in self.res if i[0] == pool):
            expires = self.res[ident]['expires']
            if expires is not None and expires <= self.now:
                self._release(ident)
        for where in [w for w, until in self.waiting.items() if w[0] == pool and until <= self.now]:
            del self.waiting[where]

    def _note(self, ident, kind, vn):
        """A history entry of ``ident`` (pool, owner, key) naming ``vn``: ``left`` (release, expire) or ``held``."""
        self.entries += 1
        self.story.setdefault(ident, []).append((self.entries, kind, vn))
        self.named[vn] = self.entries

    def _returning(self, pool, owner, key, version):
        """The address (version, n) ``owner`` left resting in ``pool`` under ``key`` (of ``version``, or either
        with None) and gets back (docs/design.md#release), or None: its last entry there left it, it still rests, nobody was named
        with it since."""
        story = [e for e in self.story.get((pool, owner, key), []) if version is None or e[2][0] == version]
        if not self.delay[pool] or not story or story[-1][1] != 'left':
            return None
        entry, _kind, (v, n) = story[-1]
        if (pool, v, n) not in self.waiting or self.named.get((v, n)) != entry or self._holder(v, n) is not None:
            return None
        return v, n

    def _release(self, ident, note=True):
        r = self.res.pop(ident)
        if note:        # a static request's move is one entry, naming the new address
            self._note(ident[:3], 'left', (ident[3], r['n']))
        if self.delay[ident[0]]:
            self.waiting[(ident[0], ident[3], r['n'])] = self.now + self.delay[ident[0]]

    def _live(self, ident):
        r = self.res.get(ident)
        return r is not None and (r['expires'] is None or r['expires'] > self.now)

    def _holder(self, version, n):
        return next((i for i, r in self.res.items() if i[3] == version and r['n'] == n), None)

    def _free(self, pool, version):
        """The free addresses of ``pool``'s subnet of ``version``, lowest first (empty without one)."""
        sub = next((s for s in self.subs[pool] if s.version == version), None)
        if sub is None:
            return []
        held = set(r['n'] for i, r in self.res.items() if i[3] == version)
        resting = set(n for (_p, v, n) in self.waiting if v == version)
        return sorted(sub.allocatable() - held - resting)

    def _take(self, ident, n, expires):
        """``ident`` holds ``n`` (of its family) from now: whether that changed anything."""
        cur = self.res.get(ident)
        if cur is not None and cur == {'n': n, 'expires': expires}:
            return False
        self.res[ident] = {'n': n, 'expires': expires}
        self.waiting.pop((ident[0], ident[3], n), None)
        self._note(ident[:3], 'held', (ident[3], n))
        return True

    def _acted_on(self, pool, owner, key, version):
        """What a single-family request of ``version`` acts on (``Service._acted_on``): the owner's reservation of
        that family, else the one it holds of the other (IPv4 first)."""
        held = [v for v in (4, 6) if (pool, owner, key, v) in self.res]
        if not held:
            return None
        return (pool, owner, key, version if version in held else held[0])

    # -- driving ---------------------------------------------------------------------------------------------
    _call = IpamMachine._call     # the service called, an expected failure changing nothing

    def _model(self, predict, *args):
        """Run ``predict`` on the model; restore it and re-raise where the call must fail."""
        saved = copy.deepcopy((self.res, self.waiting, self.story, self.named))
        try:
            return predict(*args)
        except Expect:
            self.res, self.waiting, self.story, self.named = saved
            raise

    @initialize(six_first=st.booleans(), delay=st.sampled_from((0, 60)), gateway=st.booleans())
    def pools(self, six_first, delay, gateway):
        order = (6, 4) if six_first else (4, 6)
        self.subs[DUAL] = [Sub(SUBNETS[v], gateway) for v in order]
        self.subs[V4] = [Sub(ONLY4)]
        self.delay.update({DUAL: delay, V4: 0})
        for name in (DUAL, V4):
            spec = [dict({'cidr': s.cidr}, **({'gateway': _addr(s.version, s.gateway)} if s.gateway else {}))
                    for s in self.subs[name]]
            assert self._call(None, 'pool', name, subnets=spec, reuse_delay=self.delay[name])['changed'] is True

    # -- family: dual
    def _predict_dual(self, pool, owners, key, ttl):
        """The addresses each owner ends with ({version: n}) and whether anything changed; raises Expect."""
        if not any(s.version == 6 for s in self.subs[pool]):
            raise Expect('invalid_argument')
        if ttl is None and all(self._live((pool, o, key, v)) for o in owners for v in (4, 6)):
            return dict((o, dict((v, self.res[(pool, o, key, v)]['n']) for v in (4, 6))) for o in owners), False
        self._expire(pool)
        changed = False
        for version in (4, 6):
            for owner in owners:
                ident = (pool, owner, key, version)
                cur = self.res.get(ident)
                if cur is None and self._returning(pool, owner, key, version) is not None:
                    n, expires = self._returning(pool, owner, key, version)[1], None
                elif cur is None:
                    free = self._free(pool, version)
                    if not free:
                        raise Expect('pool_exhausted')
                    n, expires = free[0], None
                else:
                    n, expires = cur['n'], cur['expires']
                changed = self._take(ident, n, self.now + ttl if ttl else expires) or changed
        return dict((o, dict((v, self.res[(pool, o, key, v)]['n']) for v in (4, 6))) for o in owners), changed

    @rule(pool=st.sampled_from((DUAL, DUAL, DUAL, V4)), owner=st.sampled_from(OWNERS), key=st.sampled_from(KEYS),
          ttl=st.sampled_from(TTLS), check=st.booleans())
    def reserve_dual(self, pool, owner, key, ttl, check):
        self._dual(pool, [owner], key, ttl, check)

    @rule(owners=st.lists(st.sampled_from(OWNERS), min_size=1, max_size=4, unique=True), key=st.sampled_from(KEYS),
          ttl=st.sampled_from(TTLS), check=st.booleans())
    def reserve_dual_batch(self, owners, key, ttl, check):
        self._dual(DUAL, owners, key, ttl, check, batch=True)

    def _dual(self, pool, owners, key, ttl, check, batch=False):
        method, args = ('reserve_owners', (pool, owners)) if batch else ('reserve', (pool, owners[0]))
        kwargs = dict(key=key, ttl=ttl, family='dual')
        try:
            want, changed = self._model(self._predict_dual, pool, owners, key, ttl)
        except Expect as e:
            self._call(e.code, method, *args, **dict(kwargs, check=check))
            return
        predicted = self._call(None, method, *args, **dict(kwargs, check=True)) if check else None
        done = self._call(None, method, *args, **kwargs)
        got = self._addresses(done, batch)
        assert got == [(want[o][4], want[o][6]) for o in owners], (owners, got, want)
        assert done['changed'] is changed, (done, changed)
        if predicted is not None:
            assert self._addresses(predicted, batch) == got and predicted['changed'] is changed
        if ttl is None:
            again = self._call(None, method, *args, **kwargs)
            assert again['changed'] is False and self._addresses(again, batch) == got

    @staticmethod
    def _addresses(result, batch):
        """[(IPv4 n, IPv6 n)] of each owner of a dual result, in owners order."""
        four, six = ((result['reservations'], result['reservations6']) if batch
                     else ([result['reservation']], [result['reservation6']]))
        assert all(_parse(a['address'])[0] == 4 for a in four) and all(_parse(a['address'])[0] == 6 for a in six)
        return [(_parse(a['address'])[1], _parse(b['address'])[1]) for a, b in zip(four, six)]

    # -- one family
    def _predict_single(self, pool, owner, key, version, wanted, ttl, reassign):
        """(version, n) the request ends with, and whether it changed; raises Expect."""
        ident = self._acted_on(pool, owner, key, wanted[0] if wanted else version)
        cur = self.res.get(ident) if ident else None
        if cur is not None and ttl is None and self._live(ident) and (
                (wanted is None and version in (None, ident[3])) or wanted == (ident[3], cur['n'])):
            return (ident[3], cur['n']), False
        self._expire(pool)
        ident = self._acted_on(pool, owner, key, wanted[0] if wanted else version)
        cur = self.res.get(ident) if ident else None
        expires = self.now + ttl if ttl else (cur['expires'] if cur else None)
        if wanted is None:
            if cur is not None:
                if version is not None and ident[3] != version:
                    raise Expect('invalid_argument')
                return (ident[3], cur['n']), self._take(ident, cur['n'], expires)
            back = self._returning(pool, owner, key, version)
            if back is not None:
                return back, self._take((pool, owner, key, back[0]), back[1], expires)
            for sub in self.subs[pool]:
                if version in (None, sub.version) and self._free(pool, sub.version):
                    n = self._free(pool, sub.version)[0]
                    return (sub.version, n), self._take((pool, owner, key, sub.version), n, expires)
            raise Expect('pool_exhausted')
        v, n = wanted
        if cur is not None and (ident[3], cur['n']) == wanted:
            return wanted, self._take(ident, n, expires)
        sub = next((s for s in self.subs[pool] if (v, n) in s), None)
        if sub is None:
            raise Expect('address_out_of_pool')
        holder = self._holder(v, n)
        if holder is not None and not reassign:
            raise Expect('address_in_use')
        if sub.excluded(n):
            raise Expect('address_excluded')
        if holder is not None:
            del self.res[holder]
            self._note(holder[:3], 'held', (v, n))      # reassign
        if cur is not None:
            self._release(ident, note=False)
        self._take((pool, owner, key, v), n, expires)
        return wanted, True

    @rule(pool=st.sampled_from((DUAL, DUAL, V4)), owner=st.sampled_from(OWNERS), key=st.sampled_from(KEYS),
          family=st.sampled_from((None, 4, 6)), ttl=st.sampled_from(TTLS))
    def reserve_dynamic(self, pool, owner, key, family, ttl):
        self._single(pool, owner, key, family, None, ttl, False)

    @rule(data=st.data(), owner=st.sampled_from(OWNERS), key=st.sampled_from(KEYS), ttl=st.sampled_from(TTLS),
          reassign=st.booleans())
    def reserve_static(self, data, owner, key, ttl, reassign):
        sub = data.draw(st.sampled_from(self.subs[DUAL]))
        wanted = (sub.version, data.draw(st.integers(sub.first, sub.last)))
        self._single(DUAL, owner, key, None, wanted, ttl, reassign)

    def _single(self, pool, owner, key, version, wanted, ttl, reassign):
        kwargs = dict(key=key, ttl=ttl, family=FAMILY[version], reassign=reassign,
                      address=_addr(*wanted) if wanted else None)
        try:
            vn, changed = self._model(self._predict_single, pool, owner, key, version, wanted, ttl, reassign)
        except Expect as e:
            self._call(e.code, 'reserve', pool, owner, **kwargs)
            return
        done = self._call(None, 'reserve', pool, owner, **kwargs)
        assert _parse(done['reservation']['address']) == vn, (done['reservation'], vn)
        assert done['changed'] is changed, (done, changed)
        if ttl is None:
            again = self._call(None, 'reserve', pool, owner, **kwargs)
            assert (again['changed'], again['reservation']['address']) == (False, done['reservation']['address'])

    # -- releases and time
    @rule(pool=st.sampled_from((DUAL, DUAL, V4, None)), owner=st.sampled_from(OWNERS),
          key=st.sampled_from((None,) + KEYS), family=st.sampled_from((None, 4, 6, 'dual')))
    def release(self, pool, owner, key, family):
        if pool is None:
            key = None      # an owner's reservations across the namespace
        targets = sorted(i for i in self.res if (pool is None or i[0] == pool) and i[1] == owner
                         and (key is None or i[2] == key) and family in (None, 'dual', i[3]))
        done = self._call(None, 'release', NS, pool=pool, owner=owner, key=key, family=FAMILY[family])
        assert done['changed'] is bool(targets)
        assert sorted((r['pool'], r['owner'], r['key'], _parse(r['address'])[0]) for r in done['released']) == targets
        for ident in targets:
            self._release(ident)

    @rule(seconds=st.sampled_from((1, 29, 31, 60, 91)))
    def advance(self, seconds):
        self.clock.advance(seconds)

    # -- invariants ---------------------------------------------------------------------------------------------
    @invariant()
    def store_is_the_model(self):
        doc = export_document(self.store)
        got, seen = {}, set()
        for r in doc['reservations']:
            v, n = _parse(r['address'])
            assert (v, n) not in seen, 'held twice: %s' % r['address']
            seen.add((v, n))
            got[(r['pool'], r['owner'], r['key'], v)] = {'n': n, 'expires': r['expires_at']}
        assert got == dict((i, {'n': r['n'], 'expires': _stamp(r['expires'])}) for i, r in self.res.items())
        for pool in doc['pools']:
            resting = set(_parse(w['address']) for w in pool['released'])
            assert resting == set((v, n) for (p, v, n) in self.waiting if p == pool['name']), pool['name']
            free = set((v, n) for span in pool['free'] for v, ns_ in [_span(span)] for n in ns_)
            expected = set((s.version, n) for s in self.subs[pool['name']] for n in self._free(pool['name'], s.version))
            assert free == expected, (pool['name'], sorted(free ^ expected))
        assert self.svc.verify() == {'changed': False, 'problems': [], 'repaired': []}


class SqliteDualMachine(DualMachine):
    kind = 'sqlite'


class JsonDualMachine(DualMachine):
    kind = 'json'


class PostgresqlDualMachine(OnPostgresql, DualMachine):
    pass


class NetboxDualMachine(OnNetbox, DualMachine):
    pass


class TestNetboxStoreDualMachine(object):
    """Named for ``-k TestNetboxStore``: runs in ``make units`` only, like the NetBox conformance suite."""

    def test_netbox_dual_machine(self):
        netbox_server.server()
        run_state_machine_as_test(NetboxDualMachine, settings=NETBOX_SETTINGS)


def test_postgresql_dual_machine():
    postgresql_server.require_server()
    run_state_machine_as_test(PostgresqlDualMachine, settings=PG_SETTINGS)


TestSqliteDualMachine = SqliteDualMachine.TestCase
TestSqliteDualMachine.settings = SETTINGS
TestJsonDualMachine = JsonDualMachine.TestCase
TestJsonDualMachine.settings = SETTINGS
