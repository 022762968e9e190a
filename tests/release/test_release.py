# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a release is checked against: the tarball's contents, Galaxy's own importer, antsibull-docs,
antsibull-changelog, ansible-builder, and the files generated from other files being up to date."""

import json
import os
import re
import sys

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from conftest import BIN, ROOT, run, tool_env, version

try:
    import tomllib
except ImportError:                 # Python < 3.11 has no tomllib: the check that needs it skips
    tomllib = None

FILTERS = ['bind_zones', 'dnsmasq_hosts', 'drift', 'drift_table', 'etc_hosts', 'kea_dhcp4', 'kea_dhcp6']


def test_version_is_1_or_greater_everywhere():
    assert int(version().split('.')[0]) >= 1          # Automation Hub's REQUIRE_V1_OR_GREATER
    with open(os.path.join(ROOT, 'terraform', 'pyproject.toml')) as f:
        assert 'version = "%s"' % version() in f.read()
    with open(os.path.join(ROOT, 'terraform', 'examples', 'provider', 'provider.tf')) as f:
        assert 'version = "%s"' % version() in f.read()


def test_tarball_carries_what_a_user_runs_and_nothing_of_the_build(tarball_names):
    names = set(tarball_names)
    for needed in ('README.md', 'COPYING', 'CHANGELOG.rst', 'changelogs/changelog.yaml', 'bindep.txt',
                   'meta/runtime.yml', 'meta/execution-environment.yml', 'meta/ee-requirements.txt', 'requirements.txt',
                   'docs/docsite/extra-docs.yml', 'docs/docsite/links.yml', 'docs/stores.md',
                   'plugins/modules/reservation.py', 'plugins/filter/kea_dhcp4.py', 'roles/reserve/tasks/main.yml',
                   'playbooks/migrate_store.yml', 'tools/migrate_store.py', 'tools/_collection.py', 'terraform/pyproject.toml',
                   'terraform/netpool_terraform/provider.py', 'terraform/docs/index.md', 'terraform/CHANGELOG.md',
                   'terraform/examples/provider/provider.tf'):
        assert needed in names, needed
    unwanted = re.compile(r'^(tests|extensions|bench|build|demo|collections|changelogs/fragments|\.[^/]+)/'
                          r'|^(Makefile|pytest\.ini|ansible\.cfg|requirements-[^/]*\.txt|tools/(docsite|docsite_build|terraform_docs|_generated)\.py)$'
                          r'|(^|/)(__pycache__|[^/]*\.egg-info|build|dist)/|\.pyc$|\.sqlite|\.tar\.gz$')
    assert [n for n in names if unwanted.search(n)] == []


def test_every_tool_a_shipped_playbook_runs_is_shipped(tarball_names):
    for name in tarball_names:
        if name.startswith('playbooks/') and name.endswith('.yml'):
            with open(os.path.join(ROOT, name)) as f:
                for tool in re.findall(r"tools/[\w.]+\.py", f.read()):
                    assert tool in tarball_names, '%s runs %s' % (name, tool)


def test_galaxy_importer_accepts_the_tarball_and_lists_each_filter(tarball, tmp_path):
    config = tmp_path / 'galaxy-importer.cfg'
    # ansible-test sanity runs in `make sanity`, ansible-lint in `make lint`
    config.write_text('[galaxy-importer]\nRUN_ANSIBLE_TEST = False\nRUN_ANSIBLE_LINT = False\n'
                      'RUN_ANSIBLE_DOC = True\nREQUIRE_V1_OR_GREATER = True\nCHECK_CHANGELOG = True\n')
    out = run([sys.executable, '-m', 'galaxy_importer.main', '--print-result', str(tarball)], cwd=str(tmp_path),
              env=tool_env(GALAXY_IMPORTER_CONFIG=str(config))).stdout
    result = json.loads(out[out.index('\n{') + 1:])
    filters = sorted(c['name'] for c in result['contents'] if c['content_type'] == 'filter')
    assert filters == FILTERS
    # the roles' internal plugins: private names, and a description that says so first
    internal = [c for c in result['contents'] if c['content_type'] == 'module' and c['name'].startswith('_')]
    assert sorted(c['name'] for c in internal) == ['_drift_request', '_pools_check', '_reserve_request'], internal
    assert all(c['description'].startswith('Internal to role netpool.ipam.') for c in internal), internal
    assert all(c['description'] for c in result['contents'] if c['content_type'] in ('filter', 'module', 'lookup'))
    assert 'WARNING' not in out.split('\n{', 1)[0], out


def test_the_shipped_playbooks_run_by_their_names(installed):
    """``ansible-playbook netpool.ipam.NAME`` finds every playbook of the installed tarball (as the guides run
    them) and parses it, in one run."""
    names = sorted(n[:-4] for n in os.listdir(os.path.join(ROOT, 'playbooks')) if n.endswith('.yml'))
    run([os.path.join(BIN, 'ansible-playbook'), '--syntax-check', '-i', 'localhost,']
        + ['netpool.ipam.%s' % name for name in names], cwd=str(installed[0]),
        env=tool_env(ANSIBLE_COLLECTIONS_PATH=str(installed[0])))


def test_make_build_needs_ansible_core_alone():
    """``make build``'s recipe (``make -n -B``: every step, none run) makes a virtualenv of its own and installs
    ansible-core into it, nothing of the development environment (.venv, requirements-dev.txt)."""
    steps = run(['make', '-n', '-B', 'build'], cwd=ROOT).stdout.splitlines()
    installs = [s for s in steps if 'pip install' in s]
    assert installs and all("'^ansible-core" in s and ' -r ' not in s for s in installs), steps
    assert not [s for s in steps if re.search(r'(^|[\s/])\.venv/|requirements-dev', s)], steps
    assert any('ansible-galaxy collection build' in s for s in steps), steps


def test_antsibull_docs_lint(installed):
    run([os.path.join(BIN, 'antsibull-docs'), 'lint-collection-docs', '--plugin-docs', str(installed[1])],
        cwd=str(installed[0]))


def test_docsite_pages_are_generated_from_the_guides():
    run([sys.executable, os.path.join(ROOT, 'tools', 'docsite.py'), '--check'])
    with open(os.path.join(ROOT, 'docs', 'docsite', 'extra-docs.yml')) as f:
        listed = sorted(p for s in yaml.safe_load(f)['sections'] for p in s['toctree'])
    assert listed == sorted(['install'] + [n[:-3] for n in os.listdir(os.path.join(ROOT, 'docs')) if n.endswith('.md')])


def test_the_docsite_is_the_collections_own():
    """The front page says what the collection is, how to install it, which store to choose and lists every guide;
    the install page is the README's, with what the plugin pages' Galaxy install line means; a guide's link to a
    file of the collection shows it at the tag of this version, never on main."""
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    try:
        import docsite_build        # pylint: disable=import-outside-toplevel
    finally:
        sys.path.pop(0)
    front = docsite_build.front_page()
    assert 'Welcome to my' not in front and front.startswith('.. Written by tools/docsite_build.py')
    with open(os.path.join(ROOT, 'docs', 'docsite', 'extra-docs.yml')) as f:
        names = [p for s in yaml.safe_load(f)['sections'] for p in s['toctree']]
    for name in ['install', 'stores'] + names:
        assert ':ref:`ansible_collections.netpool.ipam.docsite.%s`' % name in front, name
    rst = os.path.join(ROOT, 'docs', 'docsite', 'rst')
    with open(os.path.join(rst, 'install.rst')) as f:
        install = f.read()
    assert 'published on Galaxy, which it is not yet' in install
    assert 'ansible-galaxy collection install netpool-ipam-%s.tar.gz' % version() in install
    pages = dict((n, open(os.path.join(rst, n)).read()) for n in sorted(os.listdir(rst)))
    links = [(n, u) for n, text in pages.items() for u in re.findall(r'https://github\.com/netpool/ipam/(?:blob|tree)/[^/>]+', text)]
    assert links and all(u.endswith('/' + version()) for _n, u in links), links


def test_terraform_docs_are_generated_from_the_schema():
    run([sys.executable, os.path.join(ROOT, 'tools', 'terraform_docs.py'), '--check'])


@pytest.mark.skipif(tomllib is None, reason='needs Python 3.11+ (tomllib)')
def test_terraform_package_license_is_an_spdx_string():
    with open(os.path.join(ROOT, 'terraform', 'pyproject.toml'), 'rb') as f:
        assert tomllib.load(f)['project']['license'] == 'GPL-3.0-or-later'


def test_changelog_lints_and_changelog_rst_is_generated_from_it(tmp_path):
    link = os.path.join(ROOT, 'collections', 'ansible_collections', 'netpool', 'ipam')
    run([os.path.join(BIN, 'antsibull-changelog'), 'lint'], cwd=link)     # the version: test_versions.py
    # `generate` rewrites CHANGELOG.rst from changelogs/changelog.yaml: it must not change it
    with open(os.path.join(ROOT, 'CHANGELOG.rst')) as f:
        before = f.read()
    try:
        run([os.path.join(BIN, 'antsibull-changelog'), 'generate'], cwd=link)
        with open(os.path.join(ROOT, 'CHANGELOG.rst')) as f:
            assert f.read() == before, 'CHANGELOG.rst is not what changelogs/changelog.yaml gives (docs/developing.md)'
    finally:
        with open(os.path.join(ROOT, 'CHANGELOG.rst'), 'w') as f:
            f.write(before)


def _ranges():
    with open(os.path.join(ROOT, 'meta', 'ee-requirements.txt')) as f:
        return [Requirement(line.split('#')[0].strip()) for line in f if line.split('#')[0].strip()]


def test_python_requirements_are_ranges_holding_the_tested_pins():
    ranges = _ranges()
    assert ranges and all(not any(s.operator in ('==', '===') for s in r.specifier) for r in ranges)
    for pins in ('requirements.txt', 'requirements-2.20.txt', 'requirements-min.txt'):
        with open(os.path.join(ROOT, pins)) as f:
            pinned = dict((r.name, r) for r in (Requirement(line.split('#')[0].strip()) for line in f if line.split('#')[0].strip()))
        for r in ranges:
            assert r.name in pinned, '%s is not tested (%s)' % (r.name, pins)
            assert r.specifier.contains(next(iter(pinned[r.name].specifier)).version), (pins, str(r))


def test_psycopg_is_tested_at_the_lowest_version_its_range_allows():
    """The PostgreSQL store is tested on the lowest psycopg the range allows (requirements-min.txt, .venv-min) and on
    the newest (requirements.txt, .venv): the lowest pin is the range's lower bound."""
    psycopg = next(r for r in _ranges() if r.name == 'psycopg')
    lowest = next(s.version for s in psycopg.specifier if s.operator == '>=')
    with open(os.path.join(ROOT, 'requirements-min.txt')) as f:
        pinned = next(Requirement(line.split('#')[0].strip()) for line in f if line.startswith('psycopg'))
    assert Version(next(iter(pinned.specifier)).version) == Version(lowest), (str(pinned), str(psycopg))


def test_ansible_builder_introspects_the_collection_and_creates_the_readmes_definition(installed, tmp_path):
    out = run([os.path.join(BIN, 'ansible-builder'), 'introspect', '--sanitize', str(installed[0])]).stdout
    found = yaml.safe_load(out[out.index('---'):])
    assert sorted(str(Requirement(line.split('#')[0].strip())) for line in found['python']) == sorted(str(r) for r in _ranges())
    # the system packages are bindep.txt's, each with the platform it is for: the probe option's commands
    with open(os.path.join(ROOT, 'bindep.txt')) as f:
        listed = [line.strip() for line in f if line.strip() and not line.startswith('#')]
    assert sorted(line.split('#')[0].strip() for line in found.get('system') or []) == sorted(listed)
    with open(os.path.join(ROOT, 'README.md')) as f:
        definition = re.search(r'<!-- file: execution-environment.yml -->\n```yaml\n(.*?)```', f.read(), re.S).group(1)
    (tmp_path / 'execution-environment.yml').write_text(definition)
    run([os.path.join(BIN, 'ansible-builder'), 'create', '-f', 'execution-environment.yml', '-c', 'context'],
        cwd=str(tmp_path))
    assert 'netpool/ipam' in (tmp_path / 'context' / '_build' / 'requirements.yml').read_text()
