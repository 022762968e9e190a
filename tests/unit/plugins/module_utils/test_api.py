# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The public entry point, ``plugins/module_utils/api.py``: its names are frozen here, so that a change of them is
made on purpose (docs/developing.md, "The public entry point"); its one failure path; its import cost."""

import os
import subprocess
import sys
import types

from ansible_collections.netpool.ipam.plugins.module_utils import api

#: the names of API_VERSION 1. Adding a name: add it here and say so in a changelog fragment (a minor version).
#: Removing a name, or changing what one does: a major version of the collection, and API_VERSION grows by one.
FROZEN = sorted([
    'API_VERSION',
    'run', 'with_service', 'store_location', 'pool_subnets', 'failure',
    'IpamError', 'InvalidArgument', 'PoolNotFound', 'AddressInUse', 'AddressExcluded', 'PoolExhausted',
    'store_options', 'check_name', 'parse_duration', 'FAMILIES', 'STRATEGIES', 'reservation_metadata',
    'pool_metadata',
    'parse_address', 'parse_range', 'merge_intervals', 'default_ranges',
    'ReservationRequest', 'PoolRequest',
    'aligned',
    'probe_request', 'PROBE_METHODS',
    'store_kind', 'open_store', 'redact', 'export_document', 'import_document', 'merge_documents', 'MergeRefused',
    'STORE_SCHEMA_VERSION',
])


def test_the_public_names_are_the_frozen_ones():
    assert api.API_VERSION == 1
    assert sorted(api.__all__) == FROZEN, (
        'api.py is public and versioned: a name added goes into FROZEN (and a changelog fragment); a name removed '
        'or changed in meaning needs a major version and API_VERSION + 1')


def test_every_public_name_is_listed_and_is_there():
    public = [name for name, value in vars(api).items()
              if not name.startswith('_') and not isinstance(value, types.ModuleType)]
    assert sorted(set(public) - set(api.__all__)) == []
    for name in api.__all__:
        assert getattr(api, name) is not None, name


def test_a_failure_is_one_result_for_any_exception(tmp_path):
    """``failure`` is the tasks' failure path: an ``IpamError`` keeps its code and message and names the store;
    anything else is ``internal_error`` saying who failed, with the traceback and no secret."""
    params = {'store': str(tmp_path / 'ipam.sqlite'), 'store_token': 's3cret', 'namespace': 'lab'}
    found = api.failure(api.PoolNotFound("Pool 'web' does not exist."), params, 'reading pool web')
    assert found['error'] == 'pool_not_found'
    assert found['msg'] == "Pool 'web' does not exist. (store: %s)" % (tmp_path / 'ipam.sqlite')
    assert 'exception' not in found

    error = None
    try:
        {}['s3cret']
    except KeyError as e:
        error = e
    bug = api.failure(error, params, 'trying to read pool web', who='The provider', report='configuration: tell us')
    assert bug['error'] == 'internal_error'
    assert bug['msg'].startswith("The provider failed unexpectedly while trying to read pool web in namespace 'lab' "
                                 "of store %s (KeyError: " % (tmp_path / 'ipam.sqlite'))
    assert bug['msg'].endswith('This is a bug in netpool.ipam, not in your configuration: tell us.')
    assert 'Traceback' in bug['exception']
    assert 's3cret' not in bug['msg'] + bug['exception']

    unnamed = api.failure(ValueError('x'), None, 'validating')
    assert 'store' not in unnamed and 'namespace' not in unnamed['msg']


def test_importing_it_imports_no_store():
    """The Terraform provider imports it at every start: the service and the stores wait for their first use."""
    code = ('import sys; from ansible_collections.netpool.ipam.plugins.module_utils import api; '
            'api.STRATEGIES; print(sorted(m for m in sys.modules if m.endswith(("._service", "._runner", "._sqlite"))))')
    collections = os.path.abspath(os.path.join(os.path.dirname(api.__file__), *(['..'] * 5)))   # ansible_collections/..
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=collections))
    assert out.stdout.strip() == '[]'
