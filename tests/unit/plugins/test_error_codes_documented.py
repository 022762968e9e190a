# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""docs/errors.md lists every error code a user can meet, each with what it means as docs/design.md#errors says it."""

import os
import re

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import ERRORS

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..')


def table():
    """code -> the 'means' cell of its row in docs/errors.md."""
    with open(os.path.join(ROOT, 'docs', 'errors.md')) as f:
        rows = re.findall(r'^\| `([a-z_]+)` \| ([^|]+) \|', f.read(), re.M)
    return dict(rows)


def test_every_code_is_in_the_table():
    documented = table()
    # the codes of module_utils, and the one the lookup and the Terraform data source raise of their own
    used = set(ERRORS) | {'not_reserved'}
    lookup = os.path.join(ROOT, 'plugins', 'lookup', 'address.py')
    terraform = os.path.join(ROOT, 'terraform', 'netpool_terraform', 'resources.py')
    with open(lookup) as f, open(terraform) as g:
        assert "'not_reserved'" in f.read() and "code = 'not_reserved'" in g.read()
    assert sorted(used - set(documented)) == []


def test_unsupported_is_what_the_store_cannot_hold():
    means = table()['unsupported']
    assert 'cannot hold what was asked' in means
    assert 'not available in this version' not in means


def test_not_reserved_says_when_it_happens():
    means = table()['not_reserved']
    assert 'allocate=true' in means and 'netpool_reservation' in means
