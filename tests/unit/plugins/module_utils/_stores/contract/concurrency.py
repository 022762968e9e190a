# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Concurrency: processes writing at once get distinct addresses and leave the tree consistent."""

import multiprocessing

from netaddr import IPAddress

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import Base


def _reserve_many(spec, worker, count, queue):
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service as S
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store as o
    store = o(spec, timeout=120)
    svc = S(store)
    got, errors = [], []
    for i in range(count):
        try:
            got.append(svc.reserve('big', 'w%d-%d' % (worker, i))['reservation']['address'])
        except IpamError as e:
            errors.append(e.code)
    store.close()
    queue.put((got, errors))


def _tree_worker(spec, worker, count, queue):
    """Odd workers reserve in the child; even ones move a forced address of the parent around the child
    (each move takes an address out of the child's free space and gives the old one back to it)."""
    from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service as S
    from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store as o
    store = o(spec, timeout=120)
    svc = S(store)
    errors = []
    for i in range(count):
        try:
            if worker % 2:
                svc.reserve('kid', 'w%d-%d' % (worker, i))
            else:
                svc.reserve('site', 'forced-%d' % worker, address='10.61.0.%d' % (1 + (7 * worker + 5 * i) % 62),
                            force=True)
        except IpamError as e:
            errors.append(e.code)
    store.close()
    queue.put(errors)


class ConcurrencyTests(Base):

    def test_a_parent_and_its_child_written_at_once_stay_consistent(self, svc, spec):
        """A parent's forced addresses come out of (and go back to) its child's free space while others
        reserve in the child: the tree shares one lock, so no free address is ever held."""
        svc.pool('site', subnets=[{'cidr': '10.61.0.0/24'}])
        svc.pool('kid', parent='site', prefix_length=26)
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        workers = [ctx.Process(target=_tree_worker, args=(spec, w, 20, queue)) for w in range(4)]
        for w in workers:
            w.start()
        errors = [e for _worker in workers for e in queue.get(timeout=600)]
        for w in workers:
            w.join()
        assert set(errors) <= {'address_in_use', 'pool_exhausted'}, errors
        store = svc.store
        with store.transaction(write=False):
            free = [n for _v, a, b in store.free_space().spans(store.get_pool('default', 'kid'))
                    for n in range(a, b + 1)]
            held = [n for n in range(int(IPAddress('10.61.0.1')), int(IPAddress('10.61.0.62')) + 1)
                    if store.holder('default', 4, n) is not None]
        assert set(free).isdisjoint(held)
        assert len(free) + len(held) == 62

    def test_processes_reserving_at_once_get_distinct_addresses(self, svc, spec):
        processes, each = self.parallel
        svc.pool('big', subnets=[{'cidr': '10.60.0.0/22'}])
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        workers = [ctx.Process(target=_reserve_many, args=(spec, w, each, queue)) for w in range(processes)]
        for w in workers:
            w.start()
        results = [queue.get(timeout=600) for _worker in workers]
        for w in workers:
            w.join()
        addresses = [a for got, _errors in results for a in got]
        assert [e for _got, errors in results for e in errors] == []
        assert len(addresses) == processes * each
        assert len(set(addresses)) == processes * each
        held = svc.info(pool='big')['reservations']
        assert sorted(r['address'] for r in held) == sorted(addresses)
