# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The real NetBox the tests use: started once per test session on 127.0.0.1, stopped at its end.

``tests/utils/netbox.py`` installs NetBox into a virtualenv of its own and keeps a migrated template
database on the machine's PostgreSQL (once per machine: ``make netbox``); a session copies the template into
a database of its own and serves it with gunicorn on a free loopback port (each pytest worker is a session: two
workers, two NetBoxes). Each test starts from an empty IPAM: ``wipe`` empties NetBox's IPAM tables and change log
in that database (the custom fields, tag and tokens stay). ``stop`` and ``start`` restart it, as a service manager
restarts NetBox.

Where NetBox cannot run (no PostgreSQL, Redis, Python 3.12 or libpq-dev) the tests skip with the reason,
unless ``NETPOOL_IPAM_TEST_NETBOX=required`` (CI): then they fail. No mock stands in for NetBox.
"""

import atexit
import contextlib
import importlib.util
import os
import subprocess

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._stores._registry import open_store as _open_store

REQUIRED = os.environ.get('NETPOOL_IPAM_TEST_NETBOX') == 'required'
_HERE = os.path.dirname(os.path.abspath(__file__))
_SCRIPT = os.path.join(_HERE, '..', 'utils', 'netbox.py')

_state = {}


def _harness():
    spec = importlib.util.spec_from_file_location('netpool_netbox_harness', _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unavailable(reason):
    msg = ('NetBox tests need a real NetBox: %s. `make netbox` installs it (Python 3.12, libpq-dev, the PostgreSQL '
           'on 127.0.0.1:5432 and the Redis on 6379); NETPOOL_IPAM_TEST_NETBOX=required makes this a failure.'
           % reason)
    if REQUIRED:
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def server():
    """``{'url', 'tokens', 'v2_token', 'database'}`` of the session's NetBox (started on first use)."""
    if 'server' not in _state and 'error' not in _state:
        harness = _harness()
        why = harness.missing()
        if why is None and not (os.path.exists(os.path.join(harness.VENV, '.installed')) or REQUIRED):
            why = 'it is not installed here (run `make netbox` once)'
        if why is not None:
            _state['error'] = why
        else:
            stack = contextlib.ExitStack()
            try:
                _state['server'] = stack.enter_context(harness.serve())
            except (harness.Unavailable, subprocess.CalledProcessError) as e:
                _state['error'] = str(e)
            else:
                _state['harness'] = harness
                atexit.register(stack.close)
    if 'error' in _state:
        _unavailable(_state['error'])
    return _state['server']


def stop():
    """Stop the session's NetBox as a service manager does (its gunicorn: SIGTERM, the requests under way finished);
    ``start`` serves it again, on the same URL, from the same database."""
    server()['gunicorn'].stop()


def start():
    """Serve the session's NetBox again after ``stop``; returns once it answers."""
    server()['gunicorn'].start()


def url():
    """The store value naming the session's NetBox."""
    return 'netbox+' + server()['url']


def token(kind='write'):
    return server()['tokens'][kind]


#: The task timeout of the stores ``open_store`` opens. The tests that use it check what NetBox ends up holding,
#: not how fast it answers; CI runs three parts of ``make test`` at once on two cores, beside NetBox's own workers,
#: and one request there has been seen to wait past the stores' default of 30 seconds. The tests of a timeout
#: running out set their own.
PATIENT = 600


def open_store(**options):
    """A store on the session's NetBox with the write token and the ``PATIENT`` timeout (``options`` are
    ``open_store``'s own, to change either)."""
    options.setdefault('token', token())
    options.setdefault('timeout', PATIENT)
    return _open_store(url(), **options)


#: NetBox's tables of what this collection writes (and what they refer to), emptied between tests
TABLES = ('ipam_ipaddress', 'ipam_iprange', 'ipam_prefix', 'ipam_vrf', 'core_objectchange', 'extras_taggeditem')


def wipe():
    """Empty NetBox's IPAM and change log (the custom fields, tags and tokens stay)."""
    made = server()
    _state['harness']._psql('TRUNCATE %s CASCADE' % ', '.join(TABLES), database=made['database'])
