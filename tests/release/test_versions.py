# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A version names one content: a release's changelog entry stays what was released, a build holding changes
that no release lists carries a version of its own (above every release, so ``ansible-galaxy collection install``
upgrades instead of saying "Nothing to do"), and the release is cut from the fragments as docs/developing.md
says (``antsibull-changelog release``, a tag, the tarball)."""

import os
import re
import shutil

import pytest
import yaml
from packaging.version import Version

from conftest import BIN, ROOT, git, released_commit, run, tool_env, version

CHANGELOG = os.path.join('changelogs', 'changelog.yaml')


def _changelog():
    with open(os.path.join(ROOT, CHANGELOG)) as f:
        return yaml.safe_load(f)


def pending_fragments():
    """The fragments that no release of changelogs/changelog.yaml lists: changes made since the last release."""
    listed = set(f for r in _changelog()['releases'].values() for f in r.get('fragments') or ())
    names = os.listdir(os.path.join(ROOT, 'changelogs', 'fragments'))
    return sorted(n for n in names if n.endswith(('.yml', '.yaml')) and n not in listed)


def entry_text(text, release):
    """The lines of ``release``'s entry in the text of a changelog.yaml (antsibull-changelog writes each release as
    a key indented by two spaces under ``releases:``)."""
    found = re.search(r'^  %s:\n(?:(?:    .*)?\n)*' % re.escape(release), text, re.M)
    return found.group(0) if found else None


def test_a_released_entry_is_what_was_released():
    """Every release's entry in changelogs/changelog.yaml is, byte for byte, the entry the release shipped."""
    if git('rev-parse', 'HEAD').returncode != 0:
        pytest.skip('not a git checkout')
    with open(os.path.join(ROOT, CHANGELOG)) as f:
        text = f.read()
    for release in _changelog()['releases']:
        commit = released_commit(release)
        shipped = git('show', '%s:%s' % (commit, CHANGELOG))
        assert shipped.returncode == 0, shipped.stderr
        assert entry_text(text, release) == entry_text(shipped.stdout, release), (
            'the %s entry of %s differs from the one released (%s): a release is never edited; describe the change '
            'in a fragment' % (release, CHANGELOG, commit[:12]))


def test_a_build_with_changes_no_release_lists_has_a_new_version():
    """galaxy.yml's version is a released one only for that release's own content (no fragment pending); with
    changes pending it is above every release, so that installing the build over a release upgrades it."""
    releases = sorted(Version(r) for r in _changelog()['releases'])
    pending = pending_fragments()
    if version() in _changelog()['releases']:
        assert pending == [], ('galaxy.yml says %s, released already, but these changes are in no release: %s; '
                               'set the next version in galaxy.yml (docs/developing.md, "Releasing")'
                               % (version(), ', '.join(pending)))
    else:
        assert Version(version()) > releases[-1], (version(), str(releases[-1]))


def test_the_release_is_cut_from_the_fragments(tmp_path):
    """``antsibull-changelog release`` on a copy: the new entry lists every pending fragment and every module added
    since, the entries before it are left byte for byte, and the result lints."""
    if version() in _changelog()['releases']:
        pytest.skip('%s is released' % version())
    copy = tmp_path / 'ansible_collections' / 'netpool' / 'ipam'
    copy.mkdir(parents=True)
    for name in ('galaxy.yml', 'changelogs', 'plugins', 'roles', 'meta'):
        (shutil.copytree if os.path.isdir(os.path.join(ROOT, name)) else shutil.copy)(
            os.path.join(ROOT, name), str(copy / name))
    run([os.path.join(BIN, 'antsibull-changelog'), 'release', '--date', '2026-12-31'], cwd=str(copy),
        env=tool_env(ANSIBLE_COLLECTIONS_PATH=str(tmp_path)))
    run([os.path.join(BIN, 'antsibull-changelog'), 'lint'], cwd=str(copy))
    with open(os.path.join(ROOT, CHANGELOG)) as f:
        before = f.read()
    after = (copy / CHANGELOG).read_text()
    assert all(entry_text(after, r) == entry_text(before, r) for r in _changelog()['releases'])
    new = yaml.safe_load(after)['releases'][version()]
    assert sorted(new['fragments']) == pending_fragments()
    assert 'repair' in [m['name'] for m in new.get('modules') or ()]
