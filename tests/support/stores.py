# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Which stores a test runs on: one list, read from the store registry (``_stores/_registry.py``), and the
named subsets a test file chooses from when it cannot run on them all.

``KINDS`` are the stores every test process runs: the two file stores and PostgreSQL (skipped, with the reason,
when no server answers: ``postgresql_server.py``). NetBox is the session's one server
(``netbox_server.py``), whose tests run in a pytest process of their own (tests/unit/conftest.py, ``netbox``):
they name it themselves. The conformance suite runs on every store through a test class per store
(``_stores/contract/``), not through this list.
"""

import pytest

from ansible_collections.netpool.ipam.plugins.module_utils._maintenance._transfer import export_document
from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import IpamError

#: every store of the registry
ALL = tuple(_registry.STORES)
#: the stores every test process runs
KINDS = tuple(kind for kind in ALL if kind != 'netbox')
#: the stores kept in one file on the controller
FILES = tuple(_registry.FILE_KINDS)
#: the file a file store is given in a test's directory (``ipam.sqlite``, ``ipam.json``)
FILE_NAMES = tuple(_registry.FILE_KINDS[kind][1] for kind in FILES)
#: the stores kept in SQL tables (``_stores/_sql.py``)
SQL = ('sqlite', 'postgresql')

assert set(KINDS) >= set(FILES) | set(SQL)


def fails(svc, code, method, *args, **kwargs):
    """Call ``method``: it must fail with error ``code`` (docs/errors.md), a message without a traceback, and
    leave ``svc``'s store exactly as it was. Returns the error."""
    before = export_document(svc.store)
    with pytest.raises(IpamError) as info:
        method(*args, **kwargs)
    assert info.value.code == code, info.value.msg
    assert info.value.msg and 'Traceback' not in info.value.msg
    assert export_document(svc.store) == before
    return info.value
