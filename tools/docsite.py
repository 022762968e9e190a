# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Write the guides of docs/*.md as the RST pages of the antsibull-docs site.

    python tools/docsite.py            # (re)write docs/docsite/rst/*.rst
    python tools/docsite.py --check    # exit 1 and name the stale pages (tests/release runs it)

docs/*.md stay the one source (GitHub shows them); antsibull-docs reads only RST, from docs/docsite/rst/,
listed in docs/docsite/extra-docs.yml. Each page is converted with m2r2 (requirements-dev.txt) under the label
``ansible_collections.netpool.ipam.docsite.<name>``; a link to another guide (or to the README's "Install")
becomes a reference to its page, a link to any other file of the repository a link to it on GitHub at the tag of
galaxy.yml's version (the docs of the version installed, not of ``main``). The page ``install`` is the README's
"Install" section.
"""

import os
import re
import sys

import m2r2
import yaml
from mistune.inline_parser import InlineParser
from pygments.lexers import get_lexer_by_name
from pygments.token import Error
from pygments.util import ClassNotFound

from _generated import sync  # tools/_generated.py, beside this script

_REGISTER = InlineParser.register


def _register(self, name, *args, **kwargs):
    # m2r2 passes RST roles (`a`:role:) through: in Markdown guides "`key`: `value: 1`" is code, not a role
    if name != 'rest_role':
        _REGISTER(self, name, *args, **kwargs)


InlineParser.register = _register

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, 'docs')
RST = os.path.join(DOCS, 'docsite', 'rst')
with open(os.path.join(ROOT, 'galaxy.yml')) as _f:
    VERSION = yaml.safe_load(_f)['version']
#: the repository at the tag of this version: what a link to a file of the collection shows
REPOSITORY = 'https://github.com/netpool/ipam/blob/%s/' % VERSION
INSTALL_NOTE = '''
The plugin pages of this site say `ansible-galaxy collection install netpool.ipam`: that command works once the
collection is published on Galaxy, which it is not yet. Until then install it from a tarball or from git, as
below.
'''
LABEL = 'ansible_collections.netpool.ipam.docsite.%s'

_LINK = re.compile(r'\[([^\]]+)\]\(([^)\s]+)\)')
_CODE = re.compile(r'^( *)\.\. code-block:: (\S+)\n\n((?:(?:\1   .*)?\n)+)', re.M)


def guides():
    return sorted(name[:-3] for name in os.listdir(DOCS) if name.endswith('.md'))


def _link(match, names, base='docs'):
    text, target = match.groups()
    text = text.replace('`', '')        # m2r2 makes a substitution of a code link text (label outside the prefix)
    if re.match(r'[a-z]+:', target) or target.startswith('#'):
        return '[%s](%s)' % (text, target)
    path, anchor = (target.split('#', 1) + [''])[:2]
    where = os.path.normpath(os.path.join(base, path))
    name = os.path.basename(where)[:-3] if where.endswith('.md') and os.path.dirname(where) == 'docs' else None
    if where == 'README.md' and anchor == 'install':
        name, anchor = 'install', ''
    if name in names:           # a guide's page (an anchor in it: the page)
        return '[%s](%s)' % (text, '@ref:' + name)
    url = REPOSITORY + where + ('#' + anchor if anchor else '')
    return '[%s](%s)' % (text, url)


def _lexable(match):
    """A code block in a language Pygments lexes it in without an error token, else as text: Sphinx warns
    (and fails with -W) on a block its lexer cannot read, such as HCL's ``for`` expressions."""
    indent, language, code = match.groups()
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:       # no lexer of that name
        return match.group(0).replace(':: ' + language, ':: text', 1)
    source = '\n'.join(line[len(indent) + 3:] for line in code.splitlines())
    if any(token is Error for token, _value in lexer.get_tokens(source)):
        return match.group(0).replace(':: ' + language, ':: text', 1)
    return match.group(0)


def _reference(text, name):
    """A reference to guide ``name``: its page's title when the link's text is only the file's name."""
    if re.match(r'^(\.\./)?(docs/)?%s\.md$' % re.escape(name), text.strip()):
        return ':ref:`%s`' % (LABEL % name)
    return ':ref:`%s <%s>`' % (text, LABEL % name)


def _install():
    """The README's "Install" section as a page of its own, with what the plugin pages' install line means."""
    with open(os.path.join(ROOT, 'README.md')) as f:
        readme = f.read()
    section = re.search(r'^## Install\n(.*?)(?=^## )', readme, re.S | re.M).group(1)
    section = re.sub(r'^<!--.*?-->\n', '', section, flags=re.M)
    return '# Installing netpool.ipam\n' + INSTALL_NOTE + section


def page(name, names):
    if name == 'install':
        text, base = _install(), '.'
    else:
        with open(os.path.join(DOCS, name + '.md')) as f:
            text, base = f.read(), 'docs'
    text = _LINK.sub(lambda m: _link(m, names, base), text)
    body = m2r2.convert(text)
    body = body.replace('.. code-block::\n', '.. code-block:: text\n')    # rstcheck wants a language
    # a link to another guide: a reference to its page in the site
    body = re.sub(r'`([^`<]+?) <@ref:([a-z_]+)>`_', lambda m: _reference(m.group(1), m.group(2)), body)
    body = _CODE.sub(_lexable, body)
    source = 'README.md (its "Install")' if name == 'install' else 'docs/%s.md' % name
    return '..\n   Generated from %s by tools/docsite.py: edit that file, then run the tool.\n\n.. _%s:\n%s' % (
        source, LABEL % name, body.rstrip() + '\n')


def pages():
    names = guides() + ['install']
    return dict((name + '.rst', page(name, names)) for name in names)


def main(argv=None):
    made = pages()
    check, stale = sync(__doc__.split('\n\n', 1)[0], made, RST, argv)
    extra = sorted(set(os.listdir(RST)) - set(made)) if os.path.isdir(RST) else []
    if check and (stale or extra):
        print('Not up to date: %s. Run: python tools/docsite.py'
              % ', '.join(['docs/docsite/rst/' + s for s in stale] + ['docs/docsite/rst/%s (no docs/*.md)' % s for s in extra]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
