# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a collection offers a playbook, read from its documentation: every plugin (``TYPE/NAME``) and role entry
point (``role/ROLE:ENTRY``) with its ``version_added``, its options (``a``, ``a.b`` for a suboption, each with its
``version_added``) and whether it says it is internal.

``python tests/release/interface.py DIR > tests/release/interface-1.0.0.yml`` wrote the list of 1.0.0 from the
tree of its tag (``git archive 1.0.0 plugins roles | tar -x -C DIR``); test_version_added.py compares this tree
with it.
"""

import ast
import functools
import glob
import os
import sys

import yaml

SKIP = ('action', 'module_utils', 'plugin_utils')


def _documentation(path):
    """The DOCUMENTATION of a plugin file (a ``.py`` string, or the YAML of a filter's ``.yml``), or None."""
    with open(path) as f:
        text = f.read()
    if path.endswith('.yml'):
        return (yaml.safe_load(text) or {}).get('DOCUMENTATION')
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == 'DOCUMENTATION' for t in node.targets):
            return yaml.safe_load(node.value.value)
    return None


def _options(options, prefix=''):
    """``{dotted name: version_added or None}`` of ``options`` and their suboptions."""
    found = {}
    for name, spec in sorted((options or {}).items()):
        spec = spec or {}
        found[prefix + name] = str(spec['version_added']) if 'version_added' in spec else None
        found.update(_options(spec.get('suboptions') or spec.get('options'), prefix + name + '.'))
    return found


def _entry(doc):
    return {'version_added': str(doc['version_added']) if 'version_added' in doc else None,
            'internal': 'internal' in (doc.get('short_description') or '').lower(),
            'options': _options(doc.get('options'))}


@functools.lru_cache(maxsize=None)
def interface(root):
    """``{name: {'version_added', 'internal', 'options'}}`` of the plugins and role entry points under ``root``."""
    found = {}
    for path in sorted(glob.glob(os.path.join(root, 'plugins', '*', '*.py'))
                       + glob.glob(os.path.join(root, 'plugins', 'filter', '*.yml'))):
        kind = os.path.basename(os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        if kind in SKIP or name.startswith('_') or kind == 'doc_fragments':
            continue
        doc = _documentation(path)
        if doc:
            found['%s/%s' % (kind, name)] = _entry(doc)
    for path in sorted(glob.glob(os.path.join(root, 'roles', '*', 'meta', 'argument_specs.yml'))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        with open(path) as f:
            for entry, doc in sorted(yaml.safe_load(f)['argument_specs'].items()):
                found['role/%s:%s' % (role, entry)] = _entry(doc)
    return found


if __name__ == '__main__':
    yaml.safe_dump(interface(sys.argv[1]), sys.stdout, default_flow_style=False, sort_keys=True)
