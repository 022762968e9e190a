# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the whole unit suite shares: Hypothesis's profile, and the mark that says which tests exercise
ansible-core.

**ansible_core.** The whole suite runs on the newest supported ansible-core (``make units``). On the older ones
(``make units-min``: 2.19, ``make smoke-2.20``: 2.20) only what can break between ansible-core versions runs: the
tests marked ``ansible_core``. A test is marked when its file

- lies in a folder of plugins that ansible-core loads (``tests/unit/plugins/{action,filter,inventory,lookup,
  modules,plugin_utils}``) or of playbooks (``tests/unit/playbooks``), or
- uses ansible-core in its own process: it imports ``ansible``, or the collection's plugins that only
  ansible-core loads (see ``_RUNS_ANSIBLE_CORE``).

A ``module_utils`` test file that only drives a store through ``ansible-playbook`` (a fault journey, a
transfer, the probe in a network namespace) is not marked: what it can find is in the store's code, the same on
every ansible-core, and the playbook path it takes is the action plugins', which the marked tests run.

The conformance suite (a class inheriting the contract, whatever its file), the allocator, the state machines
and the other ``module_utils`` tests that drive the service directly import nothing of ansible-core, so they run
once. The oldest set also pins the lowest psycopg the collection supports: the PostgreSQL store's own tests of
its psycopg use (``test_postgresql.py``, ``_psycopg``, ``_retry``, ``_round_trips``, but for the conformance
suite) run there too, marked ``lowest_pins``.

**Fixtures every test may ask for.** ``workdir`` (``tmp_path`` as the working directory, no store in the
environment), ``clock`` (``tests/support/clock.py``, moved by hand). After every test the runner's cached
services are closed and forgotten (``tests/support/services.py``), so no test sees a store another one opened.
Which stores a test runs on is named in ``tests/support/stores.py``; ``ansible-playbook`` is run by
``tests/support/playbook.py``.

**netbox.** The tests of the session's real NetBox (tests/support/netbox_server.py) are marked ``netbox``:
``make units`` runs them on two workers, each against a NetBox of its own, beside two workers that run the rest.
They run on the newest ansible-core only.
"""

import os
import re

import pytest

from ansible_collections.netpool.ipam.tests.support import fuzz, services
from ansible_collections.netpool.ipam.tests.support.clock import Clock
from ansible_collections.netpool.ipam.tests.unit.plugins.module_utils._stores.contract import _base as contract

fuzz.load_profile()

_HERE = os.path.dirname(os.path.abspath(__file__))
_CORE_FOLDERS = tuple(os.path.join(_HERE, *parts) + os.sep for parts in (
    ('plugins', 'action'), ('plugins', 'filter'), ('plugins', 'inventory'), ('plugins', 'lookup'),
    ('plugins', 'modules'), ('plugins', 'plugin_utils'), ('playbooks',)))
#: a test file that names one of these uses ansible-core in its own process: its Python package, or the
#: collection's plugin code (action plugins, modules, the lookup...) that only ansible-core loads
_RUNS_ANSIBLE_CORE = re.compile(
    r"^\s*(from|import) ansible[. ]|plugins\.(action|filter|inventory|lookup|modules|plugin_utils)\b|"
    r"support\.plugins\b", re.M)
#: the PostgreSQL store's own tests of its psycopg use (not its playbook and fault journeys)
_LOWEST_PINS = re.compile(r'test_postgresql(_psycopg|_retry|_round_trips)?\.py$')
_USES_NETBOX = re.compile(r'\bnetbox_server\b')

_sources = {}


def _source(path):
    if path not in _sources:
        with open(path) as f:
            _sources[path] = f.read()
    return _sources[path]


def _runs_ansible_core(path):
    return path.startswith(_CORE_FOLDERS) or bool(_RUNS_ANSIBLE_CORE.search(_source(path)))


def _needs_netbox(item, path):
    """A test of the session's NetBox: its file uses tests/support/netbox_server and its name says NetBox."""
    return 'netbox' in item.nodeid.lower() and bool(_USES_NETBOX.search(_source(path)))


def pytest_configure(config):
    config.addinivalue_line('markers', 'ansible_core: exercises ansible-core (run on every supported version)')
    config.addinivalue_line('markers', 'lowest_pins: the PostgreSQL store on the lowest psycopg (make units-min)')
    config.addinivalue_line('markers', 'netbox: needs the session\'s NetBox (make units-netbox runs them)')


def _is_contract(item):
    return item.cls is not None and issubclass(item.cls, contract.Base)


def pytest_itemcollected(item):
    """Mark each test as it is collected."""
    path = str(item.fspath)
    if _needs_netbox(item, path):
        item.add_marker(pytest.mark.netbox)
    if _is_contract(item):
        return
    if _runs_ansible_core(path):
        item.add_marker(pytest.mark.ansible_core)
    if _LOWEST_PINS.search(path):
        item.add_marker(pytest.mark.lowest_pins)


@pytest.fixture(autouse=True)
def _forget_services():
    """The runner's cached services closed and forgotten after every test."""
    yield
    services.reset()


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """``tmp_path`` as the working directory (relative store paths resolve there), and no store named by the
    environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv('NETPOOL_IPAM_STORE', raising=False)
    return tmp_path


@pytest.fixture
def clock():
    """A clock the test moves by hand."""
    return Clock()
