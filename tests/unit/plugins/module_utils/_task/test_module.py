# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The module adapter (``_task/_module.py``) carries every store of the registry, and no other.

AnsiballZ packs the module_utils a module file's source imports, statically; the store registry
(``_stores/_registry.py``) imports a store by the name of its module, which AnsiballZ cannot see. So
``_module.py`` imports each store's module and its free space's by name: these tests read its source and fail
when those imports and ``_registry.modules()`` disagree (a store added to the registry and not here would be
missing from a module file run without its action plugin; one taken out would still be packed).
"""

import ast
import os

from ansible_collections.netpool.ipam.plugins.module_utils._stores import _registry

PACKAGE = 'ansible_collections.netpool.ipam.plugins.module_utils.'
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
MODULE_UTILS = os.path.join(ROOT, 'plugins', 'module_utils')
MODULE = os.path.join(MODULE_UTILS, '_task', '_module.py')


def _is_module(name):
    """Whether ``name`` (``_stores._json``) is a module or a package under plugins/module_utils."""
    path = os.path.join(MODULE_UTILS, *name.split('.'))
    return os.path.isfile(path + '.py') or os.path.isfile(os.path.join(path, '__init__.py'))


def packed_stores(source):
    """The store and free-space modules (under ``_stores`` and ``_space``) that ``source`` imports at its top
    level, as ``_registry.modules()`` names them: what AnsiballZ packs of them."""
    found = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (node.module or '').startswith(PACKAGE):
            base = node.module[len(PACKAGE):]
            for alias in node.names:
                name = base + '.' + alias.name
                found.add(name if _is_module(name) else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name[len(PACKAGE):] for alias in node.names if alias.name.startswith(PACKAGE))
    return {name for name in found if name.split('.')[0] in ('_stores', '_space')}


def disagreement(source, registered):
    """(modules the registry names that ``source`` does not import, store modules it imports that the registry
    does not name); both empty when they agree."""
    packed = packed_stores(source)
    return sorted(set(registered) - packed), sorted(packed - set(registered))


def _source():
    with open(MODULE) as f:
        return f.read()


def test_the_module_adapter_imports_exactly_the_stores_of_the_registry():
    assert disagreement(_source(), _registry.modules()) == ([], [])


def test_every_store_of_the_registry_and_its_free_space_is_named():
    registered = _registry.modules()
    for kind, (module, _cls) in _registry.STORES.items():
        assert '_stores.' + module in registered, kind
        assert _registry.FREE_SPACE[kind][0] in registered, kind
    assert all(_is_module(name) for name in registered), registered


def test_the_check_finds_a_store_the_module_adapter_does_not_import():
    source = '\n'.join(line for line in _source().splitlines() if not line.startswith(
        'from %s_stores import ' % PACKAGE))
    missing, extra = disagreement(source, _registry.modules())
    assert missing == ['_stores._json', '_stores._postgresql', '_stores._sqlite'] and extra == []


def test_the_check_finds_a_store_the_registry_does_not_name():
    registered = [name for name in _registry.modules() if name != '_stores._netbox._store']
    assert disagreement(_source(), registered) == ([], ['_stores._netbox._store'])
    missing, extra = disagreement(_source(), _registry.modules() + ['_stores._other'])
    assert (missing, extra) == (['_stores._other'], [])


def test_the_check_reads_each_form_of_import():
    source = ('from %(p)s_stores import _json, _retry\n'
              'from %(p)s_stores._netbox import _store\n'
              'from %(p)s_space._spans import Spans\n'
              'import %(p)s_stores._sqlite\n'
              'from %(p)s_task import _runner\n'
              'def later():\n'
              '    from %(p)s_stores import _postgresql\n' % {'p': PACKAGE})
    assert packed_stores(source) == {'_stores._json', '_stores._retry', '_stores._netbox._store', '_space._spans',
                                     '_stores._sqlite'}
