# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The release checks (`make release-check`): what a user gets is the built tarball, so each check
runs on it (or on it installed), with the tools of the virtualenv that runs pytest (requirements-dev.txt)."""

import os
import subprocess
import sys
import tarfile

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.dirname(sys.executable)


def version():
    with open(os.path.join(ROOT, 'galaxy.yml')) as f:
        return yaml.safe_load(f)['version']


def tool_env(**extra):
    """The environment for a tool of this virtualenv: its bin first on PATH (antsibull-docs and galaxy-importer
    call ansible-doc by name), and no ANSIBLE_* setting of the caller's (make exports ANSIBLE_COLLECTIONS_PATH)."""
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith('ANSIBLE_'))
    env['PATH'] = BIN + os.pathsep + env.get('PATH', '')
    env.update(extra)
    return env


def run(argv, cwd=None, env=None, check=True):
    proc = subprocess.run(argv, cwd=cwd, env=env or tool_env(), stdin=subprocess.DEVNULL, check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and proc.returncode != 0:
        pytest.fail('%s failed (rc %d):\n%s' % (' '.join(map(str, argv)), proc.returncode, proc.stdout[-6000:]))
    return proc


@pytest.fixture(scope='session')
def tarball(tmp_path_factory):
    """The collection as `make build` builds it."""
    out = tmp_path_factory.mktemp('build')
    run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'build', '--output-path', str(out), ROOT])
    path = out / ('netpool-ipam-%s.tar.gz' % version())
    assert path.is_file()
    return path


@pytest.fixture(scope='session')
def tarball_names(tarball):
    with tarfile.open(tarball) as tar:
        return sorted(m.name for m in tar.getmembers() if m.isfile())


@pytest.fixture(scope='session')
def installed(tarball, tmp_path_factory):
    """The tarball installed with ansible-galaxy into a collections directory of its own: its path, and the
    collection's directory in it."""
    path = tmp_path_factory.mktemp('collections')
    run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'install', '-p', str(path), str(tarball)], cwd=str(path))
    return path, path / 'ansible_collections' / 'netpool' / 'ipam'


#: the commit each release was built from, for a clone without its tags (a tag, where it exists, must agree)
RELEASE_COMMITS = {'1.0.0': '198b35df2ea00e7d00363e90f9711d3b78149b9a'}


def git(*argv):
    return subprocess.run(['git', '-C', ROOT] + list(argv), capture_output=True, text=True, check=False)


def released_commit(release):
    """The commit ``release`` was built from: its tag, else the commit recorded here (a clone without tags)."""
    tag = git('rev-parse', '--verify', '--quiet', 'refs/tags/%s^{commit}' % release).stdout.strip()
    known = RELEASE_COMMITS.get(release)
    assert not (tag and known) or tag == known, 'tag %s is %s, the release was built from %s' % (release, tag, known)
    assert tag or known, 'release %s has no tag: git tag -a %s COMMIT (docs/developing.md, "Releasing")' % (
        release, release)
    return tag or known
