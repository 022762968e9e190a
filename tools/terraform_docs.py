# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Write the Terraform provider's registry-style documentation from its schema.

    python tools/terraform_docs.py            # (re)write terraform/docs/
    python tools/terraform_docs.py --check    # exit 1 and name the stale files (tests/release runs it)

terraform/docs/index.md, resources/<name>.md and data-sources/<name>.md, in the layout the Terraform
registry (and tfplugindocs) uses: each page is the schema the provider gives Terraform (every attribute with
its type, whether it is required, optional or read-only, and its description) and the examples of
terraform/examples/ (provider/provider.tf, resources/<type>/resource.tf and import.sh,
data-sources/<type>/data-source.tf), which every resource and data source must have.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TERRAFORM = os.path.join(ROOT, 'terraform')
sys.path[:0] = [TERRAFORM]
os.environ.setdefault('NETPOOL_TERRAFORM_COLLECTIONS_PATH', os.path.join(ROOT, 'collections'))

from netpool_terraform._base import Object  # noqa: E402  pylint: disable=wrong-import-position
from netpool_terraform.provider import NetpoolProvider  # noqa: E402  pylint: disable=wrong-import-position
from tf.types import Bool, List, Map, Number, Set, String  # noqa: E402  pylint: disable=wrong-import-position

from _generated import sync  # noqa: E402  pylint: disable=wrong-import-position

INTRO = ('The `netpool` provider reserves IP addresses from the pools of the netpool.ipam Ansible collection: '
         'the same pools, stores and rules its modules, roles and lookup use, so that a VM Terraform creates '
         'and the play that configures it see one address. It is a Python package that ships inside the '
         'collection (`terraform/`) and is installed from a filesystem mirror, not from a registry: see '
         '[docs/terraform.md](https://github.com/netpool/ipam/blob/main/docs/terraform.md) of the collection '
         'for the installation, and its README for installing the collection.')


def type_name(kind):
    if isinstance(kind, Object):
        return 'Object'
    if isinstance(kind, Set):
        return 'Set of %s' % type_name(kind.element_type)
    if isinstance(kind, List):
        return 'List of %s' % type_name(kind.element_type)
    if isinstance(kind, Map):
        return 'Map of %s' % type_name(kind.element_type)
    return {Bool: 'Boolean', Number: 'Number', String: 'String'}[type(kind)]


def attribute_line(attr, resource):
    flags = [type_name(attr.type)] + (['Sensitive'] if attr.sensitive else [])
    text = '- `%s` (%s) %s' % (attr.name, ', '.join(flags), attr.description.strip())
    if resource and attr.requires_replace:
        text += ' Changing it replaces the resource.'
    return text


def schema_section(schema, resource):
    groups = (('Required', lambda a: a.required),
              ('Optional', lambda a: a.optional),
              ('Read-Only', lambda a: a.computed and not a.optional and not a.required))
    out = ['## Schema', '']
    for title, pick in groups:
        attrs = sorted((a for a in schema.attributes if pick(a)), key=lambda a: a.name)
        if attrs:
            out += ['### %s' % title, ''] + [attribute_line(a, resource) for a in attrs] + ['']
    return out


def example(path, lang):
    with open(os.path.join(TERRAFORM, 'examples', path)) as f:
        return ['```%s' % lang, f.read().rstrip('\n'), '```', '']


def front_matter(title, description):
    return ['---', 'page_title: "%s"' % title, 'subcategory: ""', 'description: |-',
            '  ' + description, '---', '']


def page(kind, cls):
    name = 'netpool_' + cls.get_name()
    schema = cls.get_schema()
    label = 'Resource' if kind == 'resources' else 'Data Source'
    out = front_matter('%s %s - netpool' % (name, label), schema.description)
    out += ['# %s (%s)' % (name, label), '', schema.description, '', '## Example Usage', '']
    out += example('%s/%s/%s' % (kind, name, 'resource.tf' if kind == 'resources' else 'data-source.tf'), 'terraform')
    out += schema_section(schema, kind == 'resources')
    if kind == 'resources':
        out += ['## Import', '', 'Import is supported using the following syntax:', '']
        out += example('resources/%s/import.sh' % name, 'shell')
    return '\n'.join(out).rstrip('\n') + '\n'


def index(provider):
    out = front_matter('netpool Provider', 'The netpool provider: the pools of the netpool.ipam Ansible collection.')
    out += ['# netpool Provider', '', INTRO, '', '## Example Usage', '']
    out += example('provider/provider.tf', 'terraform')
    out += schema_section(provider.get_provider_schema(None), False)
    return '\n'.join(out).rstrip('\n') + '\n'


def pages():
    provider = NetpoolProvider()
    found = {'docs/index.md': index(provider)}
    for kind, classes in (('resources', provider.get_resources()), ('data-sources', provider.get_data_sources())):
        for cls in classes:
            found['docs/%s/%s.md' % (kind, cls.get_name())] = page(kind, cls)
    return found


def main(argv=None):
    check, stale = sync(__doc__.split('\n\n', 1)[0], pages(), TERRAFORM, argv)
    if check and stale:
        print('Not up to date: %s. Run: python tools/terraform_docs.py' % ', '.join('terraform/' + s for s in stale))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
