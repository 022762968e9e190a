# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Fixtures of the Terraform end-to-end tests: the mirror (once per session), a store of each kind, a
Terraform working directory on it."""

import pytest

from ansible_collections.netpool.ipam.tests.support import postgresql_server

from harness import Workdir, require_terraform, write_mirror  # pylint: disable=import-error


@pytest.fixture(scope='session')
def cli_config(tmp_path_factory):
    require_terraform()
    return write_mirror(str(tmp_path_factory.mktemp('terraform')))


@pytest.fixture(params=['sqlite', 'json', 'postgresql'])
def store(request, tmp_path):
    """A fresh store of each kind: its ``store`` value."""
    if request.param == 'postgresql':
        with postgresql_server.fresh_schema('tf') as (url, _schema):
            yield url
    else:
        yield str(tmp_path / ('ipam.' + request.param))


@pytest.fixture
def sqlite_store(tmp_path):
    return str(tmp_path / 'ipam.sqlite')


@pytest.fixture
def workdir(tmp_path, cli_config, store):
    return Workdir(tmp_path / 'tf', cli_config, store)
