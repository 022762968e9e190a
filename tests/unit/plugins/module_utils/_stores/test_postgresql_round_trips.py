# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How many round trips a reservation costs on PostgreSQL, counted on the wire.

The store talks to the server through a relay on loopback that counts round trips: each time the server
answers after the client sent something. Counts, not times: the figures of docs/performance.md come from
``bench/round_trips.py``, which runs the same counter.
"""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server
from ansible_collections.netpool.ipam.tests.support.wire import RoundTrips


@pytest.fixture
def counted():
    """``(service, counter)`` on a fresh schema, every byte through the counting relay."""
    with server.fresh_schema('rt') as (spec, _schema):
        with RoundTrips(spec) as counter:
            store = open_store(counter.spec)
            try:
                yield Service(store), counter
            finally:
                store.close()


def test_a_new_reservation_and_a_rerun(counted):
    svc, counter = counted
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
    svc.reserve('web', 'first')
    with counter.counting() as new:
        assert svc.reserve('web', 'h1')['changed'] is True
    with counter.counting() as rerun:
        assert svc.reserve('web', 'h1')['changed'] is False
    # once 19 and 4 (statement by statement, the read of the rerun in its own transaction); then 4
    # and 1 (a read-only look first, then the lock and the pool, the reservation again, the writes); now the
    # lock, the pool and the reservation in one, then the writes with COMMIT
    assert new.round_trips == 2, new.round_trips
    assert rerun.round_trips == 1, rerun.round_trips


def test_a_rerun_lets_go_of_the_pool_at_once(counted):
    """A rerun takes the pool's lock and does not wait for its COMMIT: the COMMIT is sent all the same, so another
    controller gets the lock at once, while the first store's connection stays idle."""
    svc, _counter = counted
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
    svc.reserve('web', 'h1')
    assert svc.reserve('web', 'h1')['changed'] is False       # its answer to COMMIT is not read yet
    other = open_store(svc.store.spec, timeout=1)
    try:
        assert Service(other).reserve('web', 'h2')['changed'] is True   # timeout 1: store_busy if still held
    finally:
        other.close()
    assert svc.reserve('web', 'h1')['changed'] is False       # the first store goes on where it was
    assert [r['owner'] for r in svc.info(pool='web')['reservations']] == ['h1', 'h2']


def test_owners_pay_for_the_transaction_once(counted):
    svc, counter = counted
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
    with counter.counting() as one:
        svc.reserve_owners('web', ['a'])
    with counter.counting() as ten:
        svc.reserve_owners('web', ['b%d' % i for i in range(10)])
    with counter.counting() as rerun:
        assert svc.reserve_owners('web', ['b%d' % i for i in range(10)])['changed'] is False
    # the lowest free span, read with the lock, stays known as each owner shortens it: ten owners cost what one
    # does (before: one more round trip per owner)
    assert one.round_trips == ten.round_trips == 2, (one.round_trips, ten.round_trips)
    assert rerun.round_trips == 1, rerun.round_trips


def test_the_counter_counts(counted):
    """The relay sees one round trip per answered query when nothing is pipelined (the counter can fail)."""
    svc, counter = counted
    store = svc.store
    with counter.counting() as plain:
        for _i in range(3):
            store._conn.execute('SELECT 1', prepare=False).fetchone()   # not prepared: a Parse of its own first
    assert plain.round_trips == 3


def test_a_batch_is_one_transaction_whatever_its_size(counted):
    """A batch of new dynamic owners costs what one owner does; statics, placed first, cost their
    look-ups each (who holds the address, what rests there)."""
    svc, counter = counted
    svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
    svc.reserve('web', 'first')
    counts = {}
    for n in (1, 10, 50):
        owners = ['d%d-%d' % (n, i) for i in range(n)]
        with counter.counting() as dynamic:
            assert svc.reserve_owners('web', owners)['changed'] is True
        statics = [{'owner': 's%d-%d' % (n, i), 'address': '10.0.%d.%d' % (n, i + 1)} for i in range(n)]
        with counter.counting() as mixed:
            assert svc.reserve_owners('web', ['m%d' % n] + statics)['changed'] is True
        counts[n] = (dynamic.round_trips, mixed.round_trips)
    # new dynamics: the lowest free span, read with the lock, serves them all. Each static still reads who holds
    # its address and the free span holding it (three round trips): a look-up by many addresses at once is not in
    # the store interface yet
    assert [counts[n][0] for n in (1, 10, 50)] == [2, 2, 2], counts
    assert [counts[n][1] for n in (1, 10, 50)] == [4 + 3 * n for n in (1, 10, 50)], counts


def test_statements_and_rows_of_a_reservation(counted):
    """What a reservation sends and reads, counted on the wire. A new one runs three
    statements (the lock; the pools with what is due, the lowest free span and the owner's reservation; the writes as
    one), no BEGIN and no COMMIT (the pipeline's Sync ends the transaction); its rows are the lock's one and the
    namespace's pools, one each (the owner's reservation rides on its pool's row). A rerun runs the same two and reads the
    same rows, then BEGIN and COMMIT, sent not waited for, end its transaction (psycopg has no public "send a Sync, do
    not wait"). (Before: six statements, BEGIN, the lock, the owner's reservation, the pools, the writes, COMMIT.)"""
    svc, counter = counted
    for name in ('web', 'db', 'mail'):
        svc.pool(name, subnets=[{'cidr': '10.%d.0.0/16' % len(name)}])
    svc.reserve('web', 'first')
    with counter.counting() as new:
        svc.reserve('web', 'h1')
    with counter.counting() as rerun:
        svc.reserve('web', 'h1')
        svc.store._leave_pipeline()     # a Sync, awaited: what the rerun sent without waiting has passed the relay
    if new.statements is None:
        pytest.skip('the server talks TLS: the relay cannot read its messages')
    assert (new.statements, new.rows) == (3, 4), (new.statements, new.rows)
    assert (rerun.statements, rerun.rows) == (4, 4), (rerun.statements, rerun.rows)


def test_a_server_whose_default_isolation_is_not_read_committed_gets_begin():
    """Without BEGIN the server's default isolation would hold: where it is not READ COMMITTED (here REPEATABLE READ,
    whose snapshot, taken by the lock's statement, would not see what the last holder of the lock committed), every
    transaction begins with BEGIN ISOLATION LEVEL READ COMMITTED and ends with COMMIT, as when statements were not yet
    batched: five statements, still two round trips, and reservations one after the other do not collide."""
    with server.fresh_schema('rt') as (spec, _schema):
        spec = spec.replace('options=-csearch_path', 'options=-cdefault_transaction_isolation%3Drepeatable%5C%20read'
                            '%20-csearch_path')
        with RoundTrips(spec) as counter:
            store, other = open_store(counter.spec), open_store(counter.spec)
            try:
                assert store._implicit_ok is False
                svc = Service(store)
                svc.pool('web', subnets=[{'cidr': '10.0.0.0/16'}])
                svc.reserve('web', 'first')
                assert Service(other).reserve('web', 'second')['reservation']['address'] == '10.0.0.2'
                with counter.counting() as new:
                    assert svc.reserve('web', 'h1')['reservation']['address'] == '10.0.0.3'
            finally:
                store.close()
                other.close()
    if new.statements is None:
        pytest.skip('the server talks TLS: the relay cannot read its messages')
    assert (new.round_trips, new.statements) == (2, 5), (new.round_trips, new.statements)
