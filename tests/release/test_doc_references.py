# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a user reads stands alone: no reference to the project's internal specification ("SPEC 3.1", a section
sign) or to an issue number ("issue 25", "(issue 14)", ".../issues/23"), which a user of the collection cannot
follow. The user's documents: README, changelogs, docs/, the roles' argument specs and READMEs, the Terraform
provider's docs and changelog, and the DOCUMENTATION, EXAMPLES and RETURN of every plugin."""

import ast
import glob
import os
import re

import pytest
import yaml

from conftest import ROOT

REFERENCE = re.compile(r'(?-i:\bSPEC\b)|§|\bissues?\s*#?\s*\d+|/issues/\d+', re.I)
DOC_STRINGS = ('DOCUMENTATION', 'EXAMPLES', 'RETURN')


def _user_files():
    patterns = ['README.md', 'CHANGELOG.rst', 'changelogs/changelog.yaml', 'changelogs/fragments/*.yml', 'docs/*.md',
                'docs/docsite/rst/*.rst', 'roles/*/README.md', 'roles/*/meta/argument_specs.yml',
                'terraform/CHANGELOG.md', 'terraform/README.md', 'terraform/docs/**/*.md', 'plugins/filter/*.yml']
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            yield os.path.relpath(path, ROOT)


def _plugin_doc_strings():
    """(file, name, text) of each DOCUMENTATION, EXAMPLES and RETURN string of a plugin or doc fragment."""
    for path in sorted(glob.glob(os.path.join(ROOT, 'plugins', '*', '*.py'))):
        if os.path.basename(os.path.dirname(path)) in ('module_utils', 'plugin_utils'):
            continue
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in DOC_STRINGS:
                        yield os.path.relpath(path, ROOT), target.id, node.value.value


def _found(text):
    return ['line %d: %s' % (n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if REFERENCE.search(line)]


def test_the_pattern_catches_what_it_is_for():
    for text in ('(SPEC §3.1)', 'as SPEC 4.4 names them', 'issue 25', '(issue 14)', 'Issue #7', 'see .../issues/23'):
        assert _found(text), text
    for text in ('an issue with the store', 'the role spec', 'tissue 5'):
        assert not _found(text), text


@pytest.mark.parametrize('name', list(_user_files()))
def test_user_documents_reference_no_spec_section_or_issue(name):
    with open(os.path.join(ROOT, name), encoding='utf-8') as f:
        assert _found(f.read()) == [], '%s refers to what a user cannot follow: explain it in words' % name


def test_plugin_documentation_references_no_spec_section_or_issue():
    found = dict(('%s %s' % (path, which), _found(text)) for path, which, text in _plugin_doc_strings())
    assert len(found) > 20          # every plugin's strings were read
    assert dict((k, v) for k, v in found.items() if v) == {}


def test_every_version_added_is_a_release_of_the_changelog():
    """A plugin or role says "New in X" for X a release of the collection (there was no 0.1.0), or the next minor
    release, which the fragments not released yet go into (an option added since the last release)."""
    with open(os.path.join(ROOT, 'changelogs', 'changelog.yaml')) as f:
        releases = set(yaml.safe_load(f)['releases'])
    newest = max(tuple(int(p) for p in v.split('.')) for v in releases)
    releases.add('%d.%d.0' % (newest[0], newest[1] + 1))
    found = {}
    for path, which, text in _plugin_doc_strings():
        if which == 'DOCUMENTATION':
            for version in re.findall(r'^\s*version_added:\s*["\']?([^\s"\']+)', text, re.M):
                found.setdefault(version, []).append(path)
    for path in glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml')):
        with open(path) as f:
            for version in re.findall(r'^\s*version_added:\s*["\']?([^\s"\']+)', f.read(), re.M):
                found.setdefault(version, []).append(os.path.relpath(path, ROOT))
    assert found and dict((v, p) for v, p in found.items() if v not in releases) == {}
