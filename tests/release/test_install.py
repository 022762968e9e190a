# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""README "Install", followed as a user would: a fresh virtualenv, ansible-core, the collection
from the built tarball into ~/.ansible/collections (HOME is a directory of the test's), the Python
requirements from the installed collection, then the README's inventory and ten-line playbook run twice
from a project directory of their own. The git install is checked apart, with this virtualenv's ansible-galaxy."""

import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from packaging.version import Version

from conftest import BIN, ROOT, released_commit, run, tool_env, version

COLLECTION = os.path.join('.ansible', 'collections', 'ansible_collections', 'netpool', 'ipam')


def readme():
    with open(os.path.join(ROOT, 'README.md')) as f:
        return f.read()


def readme_file(name):
    """A file the README shows whole: the code block after ``<!-- file: NAME -->``."""
    found = re.search(r'<!-- file: %s -->\n```\w*\n(.*?)```' % re.escape(name), readme(), re.S)
    assert found, 'README.md shows no %s' % name
    return found.group(1)


def test_readme_gives_the_commands_this_test_runs():
    text = readme()
    for command in ("pip install 'ansible-core>=2.19'",
                    'ansible-galaxy collection install netpool-ipam-%s.tar.gz' % version(),
                    'pip install -r ~/%s/meta/ee-requirements.txt' % COLLECTION.replace(os.sep, '/'),
                    'ansible-galaxy collection install git+https://github.com/netpool/ipam.git,%s' % latest_release(),
                    'ansible-galaxy collection install git+file://',
                    'ansible-playbook -i inventory.yml site.yml'):
        assert command in text, command


def latest_release():
    """The newest release of changelogs/changelog.yaml: what the README's git install and requirements.yml pin (a
    tag that exists; galaxy.yml's version is tagged only once it is released)."""
    with open(os.path.join(ROOT, 'changelogs', 'changelog.yaml')) as f:
        return str(max(Version(v) for v in yaml.safe_load(f)['releases']))


def test_readme_pins_the_latest_release_everywhere_it_names_a_git_ref():
    pins = re.findall(r'ipam\.git,(\S+)|^\s+version: (\S+)', readme(), re.M)
    assert pins and set(a or b for a, b in pins) == {latest_release()}, pins


def _constraints(tmp_path):
    """requirements.txt as pip constraints (no extras): the fresh virtualenv gets the versions make test
    tests, from pip's cache."""
    path = tmp_path / 'constraints.txt'
    with open(os.path.join(ROOT, 'requirements.txt')) as f:
        path.write_text(''.join(re.sub(r'\[.*?\]', '', line) for line in f))
    return str(path)


def test_install_from_the_tarball_and_run_the_example(tarball, tmp_path):
    home, project = tmp_path / 'home', tmp_path / 'project'
    home.mkdir()
    project.mkdir()
    env = tool_env(HOME=str(home), PIP_CACHE_DIR=os.environ.get('PIP_CACHE_DIR')
                   or os.path.join(os.path.expanduser('~'), '.cache', 'pip'))
    env['PATH'] = os.pathsep.join(p for p in env['PATH'].split(os.pathsep) if p != BIN)
    env.pop('VIRTUAL_ENV', None)
    venv = home / 'venvs' / 'ansible'
    bin_ = str(venv / 'bin')
    # python3 -m venv ~/venvs/ansible: this virtualenv's base Python, not this virtualenv
    run([getattr(sys, '_base_executable', sys.executable), '-m', 'venv', str(venv)], env=env)
    env['PATH'] = bin_ + os.pathsep + env['PATH']
    constraints = _constraints(tmp_path)
    run([os.path.join(bin_, 'pip'), 'install', '-q', '-c', constraints, 'ansible-core>=2.19'], env=env)
    (project / tarball.name).write_bytes(tarball.read_bytes())
    run([os.path.join(bin_, 'ansible-galaxy'), 'collection', 'install', tarball.name], cwd=str(project), env=env)
    run([os.path.join(bin_, 'pip'), 'install', '-q', '-c', constraints, '-r',
         str(home / COLLECTION / 'meta' / 'ee-requirements.txt')], env=env)
    (project / tarball.name).unlink()

    (project / 'inventory.yml').write_text(readme_file('inventory.yml'))
    (project / 'site.yml').write_text(readme_file('site.yml'))
    playbook = [os.path.join(bin_, 'ansible-playbook'), '-i', 'inventory.yml', 'site.yml']
    first = run(playbook, cwd=str(project), env=env).stdout
    shown = re.findall(r'^ok: \[web\d\] => \{("msg": ".*")\}$', readme(), re.M)     # the README's output
    assert len(shown) == 3 and all(msg in first for msg in shown), first
    assert (project / 'ipam.sqlite').is_file()
    rerun = run(playbook, cwd=str(project), env=env).stdout
    assert re.search(r'changed=0', rerun) and not re.search(r'changed=[1-9]', rerun), rerun


def test_install_from_the_git_repository(tmp_path):
    if subprocess.run(['git', '-C', ROOT, 'rev-parse', 'HEAD'], capture_output=True, check=False).returncode != 0:
        pytest.skip('not a git checkout')
    clone = tmp_path / 'clone'            # a clone of its own: the install takes what is committed
    run(['git', 'clone', '-q', ROOT, str(clone)])
    run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'install', '-p', str(tmp_path / 'c'),
         'git+file://%s' % clone], cwd=str(tmp_path))
    installed = tmp_path / 'c' / 'ansible_collections' / 'netpool' / 'ipam'
    assert (installed / 'MANIFEST.json').is_file() and (installed / 'plugins' / 'filter' / 'kea_dhcp4.py').is_file()
    assert not (installed / 'tests').exists() and not (installed / 'bench').exists()
    # the README's ref: the tag of the latest release, which a clone of the project's repository carries; a clone
    # made without tags (CI's) is given the tag on the commit the release was built from
    release = latest_release()
    if run(['git', '-C', str(clone), 'tag', '-l', release]).stdout.strip() != release:
        run(['git', '-C', str(clone), 'tag', '-a', release, released_commit(release), '-m', 'netpool.ipam ' + release])
    run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'install', '-p', str(tmp_path / 'r'),
         'git+file://%s,%s' % (clone, release)], cwd=str(tmp_path))
    with open(str(tmp_path / 'r' / 'ansible_collections' / 'netpool' / 'ipam' / 'MANIFEST.json')) as f:
        assert json.load(f)['collection_info']['version'] == release
