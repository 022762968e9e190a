# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a user reads stands alone: no reference to the project's internal specification ("SPEC 3.1", a section
sign) or to an issue number ("issue 25", "(issue 14)", ".../issues/23"), which a user of the collection cannot
follow. The user's documents: README, changelogs, docs/, the roles' argument specs and READMEs, the Terraform
provider's docs and changelog, and the DOCUMENTATION, EXAMPLES and RETURN of every plugin."""

import ast
import functools
import glob
import os
import re
import subprocess

import pytest
import yaml

from conftest import ROOT, version as collection_version

REFERENCE = re.compile(r'(?-i:\bSPEC\b)|§|\bissues?\s*#?\s*\d+|/issues/\d+', re.I)
DOC_STRINGS = ('DOCUMENTATION', 'EXAMPLES', 'RETURN')


def _user_files():
    # not CHANGELOG.rst and changelogs/changelog.yaml: their entries are releases, kept as they were released
    # (test_versions.py); what the next release will say is in the fragments
    patterns = ['README.md', 'changelogs/fragments/*.yml', 'docs/*.md',
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
    """A plugin or role says "New in X" for X a release of the collection (there was no 0.1.0), or the version
    being made (galaxy.yml's, before ``antsibull-changelog release`` adds its entry)."""
    with open(os.path.join(ROOT, 'changelogs', 'changelog.yaml')) as f:
        releases = set(yaml.safe_load(f)['releases']) | {collection_version()}
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


RUN_BY_PATH = re.compile(r'ansible-playbook\b[^\n`"]*?[\s=]playbooks/\w+\.yml')


def test_user_documents_run_shipped_playbooks_by_their_names():
    """A user runs a playbook of the installed collection as ``ansible-playbook netpool.ipam.NAME``: no document
    says ``ansible-playbook playbooks/NAME.yml``, a path that exists in a checkout only (docs/developing.md, the
    page of a checkout, excepted); every ``netpool.ipam.NAME`` run is a shipped playbook."""
    shipped = set(n[:-4] for n in os.listdir(os.path.join(ROOT, 'playbooks')) if n.endswith('.yml'))
    texts = [(name, open(os.path.join(ROOT, name), encoding='utf-8').read()) for name in _user_files()
             if not name.endswith('developing.md') and not name.endswith('developing.rst')]
    texts += [(os.path.join('playbooks', n + '.yml'), open(os.path.join(ROOT, 'playbooks', n + '.yml')).read())
              for n in sorted(shipped)]
    texts += [('%s %s' % (path, which), text) for path, which, text in _plugin_doc_strings()]
    assert [(name, m.group(0)) for name, text in texts for m in RUN_BY_PATH.finditer(text)] == []
    run = set(m for _name, text in texts for m in re.findall(r'ansible-playbook\b[^\n`]*?\bnetpool\.ipam\.(\w+)', text))
    assert run and run - {'NAME'} <= shipped, sorted(run - shipped)


DEVELOPERS_ONLY = re.compile(r'\btests/|\bbench/|\btest_\w+|(?<![\w.:/-])[0-9a-f]{7,40}(?![\w.-])|\.venv/bin/')


def test_the_performance_and_reliability_guides_read_as_guides():
    """performance.md and reliability.md speak to a user: no test path or test name, no benchmark script, no
    commit id; those are in their developer pages (benchmarks.md, reliability-tests.md), which the guides link
    to and the site lists under "Developing"."""
    for guide, developers in (('performance', 'benchmarks'), ('reliability', 'reliability-tests')):
        with open(os.path.join(ROOT, 'docs', guide + '.md')) as f:
            text = f.read()
        assert _found_developer_words(text) == [], guide
        assert '](%s.md)' % developers in text, guide
        with open(os.path.join(ROOT, 'docs', developers + '.md')) as f:
            assert _found_developer_words(f.read()), developers     # the pattern finds what it is for
    with open(os.path.join(ROOT, 'docs', 'docsite', 'extra-docs.yml')) as f:
        developing = next(s for s in yaml.safe_load(f)['sections'] if s['title'] == 'Developing')['toctree']
    assert {'benchmarks', 'reliability-tests'} <= set(developing)


def _found_developer_words(text):
    return ['line %d: %s' % (n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if DEVELOPERS_ONLY.search(line)]


#: the maintainer's tree: code, tests, tools, benchmarks, roles, playbooks (the design document is docs/design.md)
MAINTAINER_PATHS = ('plugins', 'terraform', 'tests', 'tools', 'bench', 'roles', 'playbooks', 'extensions', 'Makefile')
SPEC_CITATION = re.compile(r'\bSPEC\b(?!-FLOOR)|§')
#: a tracker's issue number: a reader of the code has no tracker; the why is written where it is needed
ISSUE_NUMBER = re.compile(r'\bissues?\s*#?\s*\d+', re.I)


@functools.lru_cache(maxsize=None)
def _maintainer_texts():
    """``(path, text)`` of each tracked text file of the maintainer's tree (read once for the tests below)."""
    out = subprocess.run(['git', '-C', ROOT, 'ls-files', '--'] + list(MAINTAINER_PATHS), capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        pytest.skip('not a git checkout: %s' % out.stderr.strip())
    texts = []
    for name in out.stdout.split():
        if name == 'tests/release/test_doc_references.py':
            continue
        try:
            with open(os.path.join(ROOT, name), encoding='utf-8') as f:
                texts.append((name, f.read()))
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
    return tuple(texts)


def test_the_code_cites_the_design_document_not_a_specification_it_does_not_hold():
    """A maintainer who clones the repository has docs/design.md, and no other specification: code comments and
    tests point there (or say why in words)."""
    found = []
    for name, text in _maintainer_texts():
        found += ['%s:%d' % (name, n) for n, line in enumerate(text.splitlines(), 1) if SPEC_CITATION.search(line)]
    assert found == []


def test_the_code_says_why_rather_than_naming_an_issue():
    """No "issue N" in the code, its comments or its tests: the reason is written in words where it is needed."""
    found = []
    for name, text in _maintainer_texts():
        found += ['%s:%d' % (name, n) for n, line in enumerate(text.splitlines(), 1)
                  if ISSUE_NUMBER.search(line) and 'github.com' not in line]
    assert found == []


def _anchors(markdown):
    """The anchors of a Markdown page's headings, as GitHub and the docsite make them."""
    found = set()
    for line in markdown.splitlines():
        if line.startswith('#'):
            title = line.lstrip('#').strip().lower()
            found.add(re.sub(r'[^a-z0-9 _-]', '', title).replace(' ', '-'))
    return found


def test_every_citation_of_the_design_document_names_one_of_its_sections():
    with open(os.path.join(ROOT, 'docs', 'design.md'), encoding='utf-8') as f:
        anchors = _anchors(f.read())
    cited = {}
    for name, text in _maintainer_texts():
        for m in re.finditer(r'docs/design\.md\s*((?:#[a-z0-9-]+(?:,\s*)?)+)', text):
            for anchor in re.findall(r'#([a-z0-9-]+)', m.group(1)):
                cited.setdefault(anchor, name)
    assert len(cited) > 10
    assert dict((a, where) for a, where in cited.items() if a not in anchors) == {}
