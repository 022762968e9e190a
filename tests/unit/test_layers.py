# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The import directions of plugins/, terraform/ and tools/ (the map is in docs/developing.md, "Layers").

Every import of every file is read (imports inside functions too: they make a loop as much as any other),
whatever files exist. ``LAYERS`` is the one table: a module may import its own layer and the layers above it
in the table, never one below. A module that matches no pattern fails the test: add it to the table.
A loop of imports (two modules or more reaching each other) fails too, and so does an import of a private
module of ``plugins/`` by the Terraform provider or a tool: they use the public entry point only (``PUBLIC``).
"""

import ast
import fnmatch
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

#: where the code is read: (directory under the repository, the dotted name its files are imported by)
SOURCES = [('plugins', 'plugins'), (os.path.join('terraform', 'netpool_terraform'), 'netpool_terraform'),
           ('tools', 'tools')]

#: the layers, lowest first: (layer, patterns of dotted module names). A layer may import its own layer and
#: every layer before it. In plugins/module_utils/ each folder is one layer (docs/developing.md, "Layers"), so a
#: new file has its layer by the folder it is put in; ``test_module_utils_lives_in_folders`` keeps it so.
MU = 'plugins.module_utils.'
LAYERS = [
    ('vocabulary', [MU + '_vocabulary', MU + '_vocabulary.*']),
    ('space', [MU + '_space', MU + '_space.*']),
    ('stores', [MU + '_stores', MU + '_stores.*']),
    ('maintenance', [MU + '_maintenance', MU + '_maintenance.*']),
    ('allocation', [MU + '_allocation', MU + '_allocation.*']),
    ('task', [MU + '_task', MU + '_task.*']),
    ('adapter', ['plugins.plugin_utils', 'plugins.plugin_utils.*']),
    ('plugins', ['plugins.action.*', 'plugins.lookup.*', 'plugins.inventory.*', 'plugins.filter.*',
                 'plugins.modules.*', 'plugins.doc_fragments.*']),
    # the public entry point, for programs outside Ansible: above every plugin (nothing in plugins/ imports it)
    ('api', [MU + 'api']),
    ('terraform and tools', ['netpool_terraform', 'netpool_terraform.*', 'tools.*']),
]

#: the modules that stand directly in plugins/module_utils/, outside every folder: the public entry point only
FLAT = ['api.py']

#: the code that lies outside the plugins (the Terraform provider, the tools), and the one module of ``plugins/``
#: it may import: the public entry point, versioned with the collection (docs/developing.md)
OUTSIDE = ['netpool_terraform', 'netpool_terraform.*', 'tools.*']
PUBLIC = [MU + 'api']

#: imports against the layer order on main today, each (importer, imported): none now. Remove a
#: line when its import is gone (the test says so).
KNOWN_UPWARD = []

#: import loops on main today, each the set of modules of the loop (none now: the last two were free space and the
#: store interface, the Terraform provider and its resources).
KNOWN_LOOPS = []


def modules(root, sources):
    """{dotted name: path} of every .py file under the sources (a package by its own name)."""
    found = {}
    for directory, prefix in sources:
        base = os.path.join(root, directory)
        for here, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != '__pycache__')
            for name in files:
                if not name.endswith('.py'):
                    continue
                parts = os.path.relpath(os.path.join(here, name), base)[:-3].split(os.sep)
                if parts[-1] == '__init__':
                    parts = parts[:-1]
                found['.'.join([prefix] + parts)] = os.path.join(here, name)
    return found


def _local(name):
    """The dotted name of an import as the table spells it, or None for what is not ours."""
    collection = 'ansible_collections.netpool.ipam.'
    if name.startswith(collection):
        return name[len(collection):]
    if name == 'netpool_terraform' or name.startswith('netpool_terraform.'):
        return name
    return None


def imports(name, path, known):
    """The modules of ours that the file ``name`` imports, anywhere in it."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith('__init__.py') else name.rpartition('.')[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [_local(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split('.')
                parent = '.'.join(parts[:len(parts) - node.level + 1])
                source = parent + ('.' + node.module if node.module else '')
            else:
                source = _local(node.module or '')
            if source is None:
                continue
            # ``from package import module`` imports the module; ``from module import name`` the module
            targets = [source + '.' + alias.name if source + '.' + alias.name in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            # an import of a.b.c runs a and a.b too, but those are packages without code of their own here
            while target and target not in known:
                target = target.rpartition('.')[0]
            if target and target != name:
                found.add(target)
    return found


def graph(root=ROOT, sources=None):
    known = modules(root, SOURCES if sources is None else sources)
    return dict((name, imports(name, path, known)) for name, path in sorted(known.items()))


def layer_of(name, layers=None):
    for index, (_layer, patterns) in enumerate(LAYERS if layers is None else layers):
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
            return index
    return None


def upward(edges, layers=None):
    """(importer, imported) pairs where a lower layer imports a higher one."""
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if layer_of(b, layers) is not None and layer_of(a, layers) is not None
                  and layer_of(b, layers) > layer_of(a, layers))


def private_imports(edges):
    """(importer, imported) pairs where code outside the plugins imports a module of ``plugins/`` other than
    ``PUBLIC``."""
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if any(fnmatch.fnmatchcase(a, pattern) for pattern in OUTSIDE)
                  and b.startswith('plugins.') and b not in PUBLIC)


def loops(edges):
    """The import loops: strongly connected sets of two modules or more (Tarjan), each a set."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found, key=sorted)


@pytest.fixture(scope='module')
def edges():
    return graph()


def test_the_code_is_read(edges):
    """The walk finds the code and its imports (else the tests below would pass on nothing)."""
    assert MU + '_allocation._service' in edges and 'netpool_terraform.provider' in edges
    assert MU + '_vocabulary._errors' in edges[MU + '_allocation._service']
    assert 'plugins.plugin_utils._task._adapter' in edges['plugins.action.reservation']


def test_every_module_has_a_layer(edges):
    missing = [name for name in edges if layer_of(name) is None]
    assert not missing, 'add these modules to LAYERS in %s (and to docs/developing.md): %s' % (
        __file__, ', '.join(missing))


def test_no_layer_imports_a_layer_above_it(edges):
    found = upward(edges)
    new = ['%s (%s) imports %s (%s)' % (a, LAYERS[layer_of(a)][0], b, LAYERS[layer_of(b)][0])
           for a, b in found if (a, b) not in KNOWN_UPWARD]
    assert not new, 'imports against the layer order (docs/developing.md, "Layers"):\n' + '\n'.join(new)
    gone = [pair for pair in KNOWN_UPWARD if pair not in found]
    assert not gone, 'these imports are gone: remove them from KNOWN_UPWARD: %s' % gone


def test_the_provider_and_the_tools_use_the_public_entry_point_only(edges):
    """The Terraform provider and the tools import ``plugins/module_utils/api.py`` and nothing else of plugins/
    (the provider through ``_collection.import_api``); no file of theirs names a private module either (an
    ``importlib`` call is no import statement)."""
    assert edges['netpool_terraform._collection'] == {MU + 'api'}
    assert MU + 'api' in edges['tools._collection']
    found = private_imports(edges)
    assert not found, 'the provider and the tools import the public entry point (%s) only: %s' % (PUBLIC, found)
    named = []
    for directory, _prefix in SOURCES[1:]:
        for here, _dirs, files in os.walk(os.path.join(ROOT, directory)):
            for name in files:
                if name.endswith('.py'):
                    with open(os.path.join(here, name)) as f:
                        if re.search(r'module_utils(\.|\s+import\s+)_', f.read()):
                            named.append(os.path.join(here, name))
    assert not named, 'these files name a private module of module_utils: %s' % named


def test_no_import_loop(edges):
    found = loops(edges)
    new = [sorted(loop) for loop in found if loop not in KNOWN_LOOPS]
    assert not new, 'import loops: %s' % new
    gone = [sorted(loop) for loop in KNOWN_LOOPS if loop not in found]
    assert not gone, 'these loops are gone: remove them from KNOWN_LOOPS: %s' % gone


def test_a_loop_and_an_upward_import_are_found(tmp_path):
    """The checks above can fail: a made-up tree with a loop hidden in a method and an import upward."""
    package = tmp_path / 'plugins' / 'module_utils'
    for folder in ('_stores', '_vocabulary', '_space', '_allocation'):
        (package / folder).mkdir(parents=True)
    collection = 'ansible_collections.netpool.ipam.plugins.module_utils'
    (package / '_vocabulary' / '_errors.py').write_text(u'class IpamError(Exception):\n    pass\n')
    (package / '_space' / '_tree.py').write_text(u'from %s._vocabulary._errors import IpamError\n' % collection)
    (package / '_allocation' / '_service.py').write_text(u'from %s._space import _tree\nfrom .._stores import _base\n' % collection)
    (package / '_stores' / '_base.py').write_text(
        u'def later():\n    from %s._allocation._service import Service\n' % collection)
    edges = graph(str(tmp_path), [('plugins', 'plugins')])
    assert edges[MU + '_allocation._service'] == {MU + '_space._tree', MU + '_stores._base'}
    assert upward(edges) == [(MU + '_stores._base', MU + '_allocation._service')]
    assert loops(edges) == [{MU + '_allocation._service', MU + '_stores._base'}]


def test_a_private_import_of_the_provider_is_found(tmp_path):
    """The check of the provider's imports can fail: a made-up provider that imports the runner beside the public
    entry point, and a module_utils file that imports the entry point (an import upward)."""
    package = tmp_path / 'plugins' / 'module_utils'
    provider = tmp_path / 'terraform' / 'netpool_terraform'
    (package / '_task').mkdir(parents=True)
    provider.mkdir(parents=True)
    collection = 'ansible_collections.netpool.ipam.plugins.module_utils'
    (package / '_task' / '_runner.py').write_text(u'def run():\n    from %s import api\n' % collection)
    (package / 'api.py').write_text(u'def run():\n    from %s._task import _runner\n' % collection)
    (provider / 'provider.py').write_text(u'from %s._task import _runner\nfrom %s import api\n'
                                          % (collection, collection))
    edges = graph(str(tmp_path), [('plugins', 'plugins'), (os.path.join('terraform', 'netpool_terraform'),
                                                           'netpool_terraform')])
    assert private_imports(edges) == [('netpool_terraform.provider', MU + '_task._runner')]
    assert upward(edges) == [(MU + '_task._runner', MU + 'api')]


def test_module_utils_lives_in_folders():
    """plugins/module_utils/ holds its folders (one per layer) and the public entry point: a new module goes into
    the folder of its layer, where LAYERS has it already."""
    base = os.path.join(ROOT, 'plugins', 'module_utils')
    flat = sorted(name for name in os.listdir(base) if name.endswith('.py'))
    assert flat == FLAT, 'put these into the folder of their layer (docs/developing.md, "Layers"): %s' % (
        ', '.join(sorted(set(flat) - set(FLAT))))
    folders = sorted(name for name in os.listdir(base) if os.path.isdir(os.path.join(base, name))
                     and name != '__pycache__')
    assert folders == sorted(pattern[len(MU):] for _layer, patterns in LAYERS for pattern in patterns
                             if pattern.startswith(MU) and '.' not in pattern[len(MU):] and pattern != MU + 'api')
