# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The conformance suite (``StoreContract``): docs/design.md#rules-at-a-glance as mixins that every store's test class inherits.

A store's test file defines a class inheriting ``StoreContract`` with a pytest
fixture ``spec`` (a ``store`` value that ``open_store`` accepts, naming an empty,
isolated state). Everything here goes through the service, the way modules do.

One module per rule, each a mixin on ``_base.Base``: ``pools`` (and the map and
counts), ``ranges``, ``reserve``, ``release``, ``leases`` (and the reuse delay),
``tree`` (parent and children), ``tree_ranges`` (children by ranges), ``batches`` (``owners``), ``changes`` (check mode,
history), ``verify``, ``inventory``, ``concurrency``, ``dual`` (``family: dual``), ``owners`` (the returning owner),
``align`` (``align_with``), ``planned`` (addresses planned ahead, read then reserved exactly), ``adopt`` (the
addresses a network already uses, adopted as statics), ``probe`` (the
``probe`` option, on a network the test gives). A new rule goes in the
module of its kind, or a new module added to ``StoreContract`` below.

A store that cannot hold something of the design document (docs/design.md) says ``unsupported`` for it (docs/design.md#stores)
and names it in ``cannot``: the tests marked ``needs`` with it are skipped for that
store, whose own file shows that it says ``unsupported``. What can be named:

- ``random``: the ``random`` strategy;
- ``wide``: a subnet handing out more than 2**32 - 1 addresses (an IPv6 /64 left
  without ranges);
- ``ranges``: a child pool by ranges (docs/design.md#trees, ``tree_ranges``).
"""

import os

from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract._base import needs
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.adopt import AdoptTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.align import AlignTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.batches import OwnersTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.changes import (
    CheckModeTests, HistoryTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.concurrency import ConcurrencyTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.dual import DualTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.inventory import InventoryTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.leases import (
    LeaseTests, ReuseDelayTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.owners import ReturningOwnerTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.planned import PlannedTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.probe import ProbeTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.pools import (
    CountTests, MapTests, PoolTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.ranges import RangeTests
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.release import (
    ReleaseTests, SweepTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.reserve import (
    ReassignTests, ReserveTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.tree import (
    ChildPoolTests, TreeTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.tree_ranges import (
    RangesChildTests)
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract.verify import VerifyTests


__all__ = ['Clock', 'StoreContract', 'file_mode', 'needs']


class StoreContract(PoolTests, RangeTests, ReserveTests, ReleaseTests, CheckModeTests, HistoryTests, LeaseTests,
                    ReuseDelayTests, SweepTests, ChildPoolTests, TreeTests, RangesChildTests, ReassignTests, OwnersTests,
                    MapTests, CountTests, ConcurrencyTests, VerifyTests, InventoryTests, DualTests,
                    ReturningOwnerTests, AlignTests, PlannedTests, AdoptTests,
                    ProbeTests):
    """Every rule of the design document (docs/design.md) that a store must uphold. Inherit it; provide the ``spec`` fixture."""


def file_mode(path):
    return os.stat(path).st_mode & 0o777
