# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What every rule of the conformance suite stands on: the fixtures (``store``, ``svc``, ``web``, ``clock``),
the ``needs`` mark, and ``fails``/``unchanged``, which check that a failure or check mode leaves the store as it was."""

import random

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._allocation._service import Service
from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store
from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.tests.support import stores


needs = pytest.mark.needs


class Base(object):

    #: what the store says ``unsupported`` for (see the package docstring)
    cannot = frozenset()
    #: processes, and reservations each, of the parallel test (a remote store over HTTP may make it smaller)
    parallel = (20, 50)

    @pytest.fixture(autouse=True)
    def _what_the_store_holds(self, request):
        for mark in request.node.iter_markers('needs'):
            missing = sorted(set(mark.args) & self.cannot)
            if missing:
                pytest.skip('this store cannot hold %s: it says unsupported, which its own tests show'
                            % ' or '.join(missing))

    @property
    def other_strategy(self):
        """A strategy other than the default one, where the store holds one."""
        return 'first' if 'random' in self.cannot else 'random'

    @pytest.fixture
    def store(self, spec):
        store = open_store(spec)
        yield store
        store.close()

    @pytest.fixture
    def svc(self, store, clock, request):
        """The service over ``store``; its ``random`` strategy draws from a generator seeded by the test's name, so
        a test draws the same addresses on every run and on every store."""
        return Service(store, clock=clock, rng=random.Random(request.node.name))

    @pytest.fixture
    def web(self, svc):
        """A pool of 10.0.0.0/24, gateway .1, dynamic range .10-.20."""
        return svc.pool('web', subnets=[{'cidr': '10.0.0.0/24', 'gateway': '10.0.0.1',
                                         'ranges': ['10.0.0.10-10.0.0.20']}])

    #: call ``method``: it must fail with error ``code`` (docs/errors.md) and leave the store exactly as it was
    fails = staticmethod(stores.fails)

    @staticmethod
    def unchanged(svc, method, *args, **kwargs):
        """Call ``method`` in check mode: it must not change the store."""
        before = export_document(svc.store)
        result = method(*args, check=True, **kwargs)
        assert export_document(svc.store) == before
        return result
