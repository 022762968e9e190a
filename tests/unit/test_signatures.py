# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""How wide a signature may be: no function of plugins/ or terraform/ takes more than ``WIDEST`` parameters.

Options travel as one request object (``_vocabulary._requests``: ``ReservationRequest``, ``PoolRequest``,
``InfoRequest``), built once by each entry point and handed whole to the service, not as a dozen loose arguments
that every caller maps its own way. Every ``def`` and ``lambda`` is read with ``ast``, nested ones and methods
too. A method's ``self`` or ``cls`` (its first parameter, unless it is a ``staticmethod``) is not counted;
``*args`` and ``**kwargs`` count one each.
"""

import ast
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

#: the directories read, under the repository
SOURCES = ('plugins', 'terraform')
#: the most parameters a function may take
WIDEST = 8


def _width(node, method):
    """How many parameters the function ``node`` takes, its ``self``/``cls`` left out when it is a ``method``."""
    a = node.args
    named = list(getattr(a, 'posonlyargs', [])) + list(a.args)
    if method and named and named[0].arg in ('self', 'cls'):
        named = named[1:]
    return len(named) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)


def _functions(tree):
    """``(name, line, width)`` of every function of the module ``tree``."""
    found = []

    def visit(node, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                static = any(getattr(d, 'id', None) == 'staticmethod' for d in child.decorator_list)
                found.append((child.name, child.lineno, _width(child, in_class and not static)))
                visit(child, False)
            elif isinstance(child, ast.Lambda):
                found.append(('<lambda>', child.lineno, _width(child, False)))
                visit(child, False)
            else:
                visit(child, isinstance(child, ast.ClassDef))
    visit(tree, False)
    return found


def too_wide(root=ROOT, sources=SOURCES, widest=WIDEST):
    """``['path:line name (n parameters)']`` of every function under ``sources`` that takes more than ``widest``."""
    found = []
    for source in sources:
        for here, dirs, files in os.walk(os.path.join(root, source)):
            dirs[:] = sorted(d for d in dirs if d not in ('__pycache__', '.terraform'))
            for name in sorted(files):
                if not name.endswith('.py'):
                    continue
                path = os.path.join(here, name)
                with open(path) as f:
                    tree = ast.parse(f.read(), path)
                found += ['%s:%d %s (%d parameters)' % (os.path.relpath(path, root), line, function, width)
                          for function, line, width in _functions(tree) if width > widest]
    return found


def test_the_code_is_read():
    assert any(width for _name, _line, width in _functions(ast.parse('def f(a, b):\n    pass\n')))
    with open(os.path.join(ROOT, 'plugins', 'module_utils', '_allocation', '_service.py')) as f:
        assert len(_functions(ast.parse(f.read()))) > 20


def test_no_function_takes_more_than_eight_parameters():
    wide = too_wide()
    assert not wide, 'these take more than %d parameters: hand them a request instead (%s)' % (
        WIDEST, '; '.join(wide))


def test_a_wide_function_is_found(tmp_path):
    """The walk finds a wide function wherever it is (a method, a nested function, a lambda), counts ``*args``
    and ``**kwargs``, and leaves ``self`` out, so that a signature of exactly eight passes."""
    module = tmp_path / 'plugins' / 'module_utils' / '_allocation' / '_wide.py'
    module.parent.mkdir(parents=True)
    module.write_text(
        'class Service(object):\n'
        '    def ok(self, a, b, c, d, e, f, g, h):\n'
        '        pass\n'
        '\n'
        '    def wide(self, a, b, c, d, e, f, g, h, i):\n'
        '        def inner(a, b, c, d, e, f, g, *rest, **more):\n'
        '            pass\n'
        '        return lambda a, b, c, d, e, f, g, h, i: None\n'
        '\n'
        '    @staticmethod\n'
        '    def static(self, a, b, c, d, e, f, g, h):\n'
        '        pass\n')
    (tmp_path / 'terraform').mkdir()
    (tmp_path / 'terraform' / 'resource.py').write_text('def fine(a, b, c, d, e, f, g, h):\n    pass\n')
    found = too_wide(str(tmp_path))
    assert found == ['plugins/module_utils/_allocation/_wide.py:5 wide (9 parameters)',
                     'plugins/module_utils/_allocation/_wide.py:6 inner (9 parameters)',
                     'plugins/module_utils/_allocation/_wide.py:8 <lambda> (9 parameters)',
                     'plugins/module_utils/_allocation/_wide.py:11 static (9 parameters)'], found
