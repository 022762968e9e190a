# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Build the collection's antsibull-docs site and fail on any Sphinx warning of the collection's own (`make docs`).

    python tools/docsite_build.py [DIR]      # default build/docsite; the site is DIR/build/html/index.html

What it runs is what antsibull-docs' ``sphinx-init`` writes (``antsibull-docs collection``, then
``sphinx-build``), with ``-W``, offline: intersphinx is off (its inventories come from the network). With it off,
the references the plugin pages make into Ansible's own documentation (``action_plugins``, a module of
ansible.builtin, an ``ANSIBLE_*`` setting) cannot resolve: those, and only those, are listed in
``nitpick_ignore_regex``; every other unresolved reference, a code block Pygments cannot lex, a bad toctree,
fails the build. The plugins that serve the roles and are not for playbooks (short description ending "(internal
to the role)") are listed apart in the collection's index, not with the plugins a user calls. Without
``sphinx_ansible_theme`` installed the site is built with Sphinx's default theme (the warnings are the same).
Needs the collection importable as netpool.ipam (the Makefile exports ANSIBLE_COLLECTIONS_PATH) and the tools of
this Python's virtualenv (requirements-dev.txt).
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
INTERNAL = '(internal to the role)'

# Ansible's own documentation, which the generated plugin pages link to: resolvable only through intersphinx
EXTERNAL = """
nitpicky = True
nitpick_ignore_regex = [
    ('std:ref', r'ansible_collections\\.ansible\\.builtin\\..*'),
    ('std:ref', r'(action_plugins|common_return_values|ansible_configuration_settings|list_of_collections)'),
    ('std:envvar', r'ANSIBLE_[A-Z0-9_]+'),
]
"""


def run(argv, cwd):
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get('PATH', ''))
    print('$ ' + ' '.join(argv), flush=True)
    return subprocess.run(argv, cwd=cwd, env=env, check=False).returncode


def configure(dest):
    """conf.py of sphinx-init, offline and strict about references."""
    path = os.path.join(dest, 'conf.py')
    with open(path) as f:
        conf = f.read()
    conf = conf.replace("'sphinx.ext.intersphinx', ", '')
    conf = re.sub(r'\nintersphinx_mapping = \{.*?\n\}\n', '\n', conf, flags=re.S)
    if importlib.util.find_spec('sphinx_ansible_theme') is None:
        conf = conf.replace("html_theme = 'sphinx_ansible_theme'", "html_theme = 'alabaster'")
    with open(path, 'w') as f:
        f.write(conf + EXTERNAL)


def internal_apart(index_path):
    """The collection index with the internal plugins moved from the plugin lists to a section of their own."""
    with open(index_path) as f:
        text = f.read()
    internal = [line for line in text.splitlines() if line.startswith('* :ansplugin:') and line.endswith(INTERNAL)]
    if not internal:
        return
    for line in internal:
        text = text.replace(line + '\n', '')
    section = ('\n.. _internal_plugins_in_netpool.ipam:\n\nInternal plugins\n----------------\n\n'
               'These serve the roles and are not meant to be called from a playbook:\n\n%s\n\n'
               % '\n'.join(line[:-len(INTERNAL)].rstrip() for line in internal))
    marker = '\n.. _role_plugins_in_netpool.ipam:'
    text = text.replace(marker, section + marker, 1) if marker in text else text + section
    with open(index_path, 'w') as f:
        f.write(text)


FRONT = """.. Written by tools/docsite_build.py: the site's front page, the collection's own.

.. _docsite_root_index:

netpool.ipam
============

%(description)s

- **Install** it into your project or an execution environment: :ref:`ansible_collections.netpool.ipam.docsite.install`
  (a tarball, or a git tag; it is not on Galaxy yet).
- **Choose a store** - a SQLite file (the default), a JSON file kept in git, a PostgreSQL database shared by
  several controllers, or a NetBox: :ref:`ansible_collections.netpool.ipam.docsite.stores`.
- **The guides**:

%(guides)s

- **Reference**: every module, plugin and role (:ref:`plugins_in_netpool.ipam`) and the changelog
  (:ref:`changelog_for_netpool.ipam`).

.. toctree::
   :maxdepth: 2
   :caption: Collections:

   collections/index


.. toctree::
   :maxdepth: 1
   :caption: Plugin indexes:
   :glob:

   collections/index_*


.. toctree::
   :maxdepth: 1
   :caption: Reference indexes:

   collections/environment_variables
"""


def front_page():
    """The site's front page: what the collection is (galaxy.yml's description), how to install it, choosing a
    store, the guides of docs/docsite/extra-docs.yml, the reference; not sphinx-init's "Welcome to my Ansible
    collection documentation"."""
    with open(os.path.join(ROOT, 'galaxy.yml')) as f:
        description = ' '.join(yaml.safe_load(f)['description'].split())
    with open(os.path.join(ROOT, 'docs', 'docsite', 'extra-docs.yml')) as f:
        sections = yaml.safe_load(f)['sections']
    guides = ['  - %s: %s' % (s['title'], ', '.join(':ref:`ansible_collections.netpool.ipam.docsite.%s`' % name
                                                    for name in s['toctree'])) for s in sections]
    return FRONT % {'description': description, 'guides': '\n'.join(guides)}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    dest = os.path.abspath(argv[0] if argv else os.path.join(ROOT, 'build', 'docsite'))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    antsibull = os.path.join(BIN, 'antsibull-docs')
    if run([antsibull, 'sphinx-init', '--use-current', '--fail-on-error', '--dest-dir', dest, 'netpool.ipam'], ROOT):
        return 1
    configure(dest)
    rst = os.path.join(dest, 'rst')
    os.chmod(rst, 0o755)
    if run([antsibull, '--config-file', 'antsibull-docs.cfg', 'collection', '--cleanup', 'everything',
            '--fail-on-error', '--use-current', '--dest-dir', 'rst', 'netpool.ipam'], dest):
        return 1
    internal_apart(os.path.join(rst, 'collections', 'netpool', 'ipam', 'index.rst'))
    with open(os.path.join(rst, 'index.rst'), 'w') as f:
        f.write(front_page())
    code = run([os.path.join(BIN, 'sphinx-build'), '-W', '--keep-going', '-q', '-b', 'html', '-c', '.', 'rst',
                os.path.join('build', 'html')], dest)
    if code == 0:
        print('docsite: %s' % os.path.join(dest, 'build', 'html', 'index.html'))
    return code


if __name__ == '__main__':
    sys.exit(main())
