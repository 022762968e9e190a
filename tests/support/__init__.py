# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the tests share: servers and helpers, no tests (pytest collects nothing here).

- ``postgresql_server``: the machine's shared PostgreSQL, a fresh schema per test;
- ``own_postgresql``: a PostgreSQL server of the test's own (initdb on loopback), for fault tests;
- ``netbox_server``: the session's NetBox (tests/utils/netbox.py), emptied per test;
- ``wire``: a loopback relay counting round trips to PostgreSQL (tests and bench/round_trips.py);
- ``dhcp_dns``: Kea and BIND servers for the publish tests;
- ``reliability``: every store kind, snapshots, running an action or ansible as a user would;
- ``plugins``: the lookup, an action plugin, a module file run in process; a module's validated params;
- ``clock``: a clock the tests move by hand.

The conformance suite (docs/design.md#rules-at-a-glance, every store) is ``tests/unit/plugins/module_utils/_stores/contract/``.
"""
