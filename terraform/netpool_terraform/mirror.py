# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""``terraform-provider-netpool mirror DIR``: install the provider for Terraform without a registry.

It writes Terraform's unpacked filesystem-mirror layout,
``DIR/terraform.local/netpool/netpool/VERSION/OS_ARCH/terraform-provider-netpool_vVERSION``, where the
"binary" is a small launcher: a ``/bin/sh`` script that runs this package with the Python it is installed
in, and records where the netpool.ipam collection was found. It then prints the ``provider_installation``
block for the Terraform CLI configuration and the ``required_providers`` block for a module (or writes the
former to ``--cli-config FILE``).
"""

import argparse
import os
import platform
import shlex
import sys

from netpool_terraform import _collection

HOST, NAMESPACE, TYPE = 'terraform.local', 'netpool', 'netpool'
SOURCE = '%s/%s/%s' % (HOST, NAMESPACE, TYPE)
DISTRIBUTION = 'terraform-provider-netpool'

_ARCHES = {'x86_64': 'amd64', 'amd64': 'amd64', 'aarch64': 'arm64', 'arm64': 'arm64', 'i686': '386',
           'i386': '386', 'armv7l': 'arm'}


def version():
    # imported here: not at every start of the provider
    from importlib import metadata      # pylint: disable=import-outside-toplevel
    return metadata.version(DISTRIBUTION)


def target():
    """Terraform's name of this platform (``linux_amd64``)."""
    machine = platform.machine().lower()
    return '%s_%s' % (sys.platform if sys.platform != 'linux2' else 'linux', _ARCHES.get(machine, machine))


def launcher(collections_path):
    """The launcher's text: this package, run by this Python, finding the collection where it was found."""
    lines = ['#!/bin/sh',
             '# The netpool Terraform provider %s, written by: terraform-provider-netpool mirror' % version()]
    if collections_path:
        lines.append(': "${%s:=%s}"' % (_collection.RECORDED_ENV, shlex.quote(collections_path)))
        lines.append('export %s' % _collection.RECORDED_ENV)
    lines.append('exec %s -m netpool_terraform "$@"' % shlex.quote(sys.executable))
    return '\n'.join(lines) + '\n'


def cli_config(mirror_dir):
    return ('provider_installation {\n'
            '  filesystem_mirror {\n'
            '    path    = "%s"\n'
            '    include = ["%s"]\n'
            '  }\n'
            '  direct {\n'
            '    exclude = ["%s"]\n'
            '  }\n'
            '}\n' % (mirror_dir, SOURCE, SOURCE))


def required_providers():
    return ('terraform {\n'
            '  required_providers {\n'
            '    netpool = {\n'
            '      source  = "%s"\n'
            '      version = "%s"\n'
            '    }\n'
            '  }\n'
            '}\n' % (SOURCE, version()))


def write(mirror_dir, collections_path):
    """Write the mirror into ``mirror_dir``; the launcher's path."""
    directory = os.path.join(mirror_dir, HOST, NAMESPACE, TYPE, version(), target())
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, 'terraform-provider-%s_v%s' % (TYPE, version()))
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(launcher(collections_path))
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)
    return path


def main(argv):
    parser = argparse.ArgumentParser(prog='terraform-provider-netpool mirror',
                                     description='Write a filesystem mirror holding the netpool Terraform provider.')
    parser.add_argument('dir', help='the mirror directory (created if missing)')
    parser.add_argument('--collections-path', help='the directory holding ansible_collections/netpool/ipam '
                                                   '(default: the first of NETPOOL_TERRAFORM_COLLECTIONS_PATH, '
                                                   'ANSIBLE_COLLECTIONS_PATH, ~/.ansible/collections that has it)')
    parser.add_argument('--cli-config', help='also write the provider_installation block to this file (a Terraform '
                                             'CLI configuration, for TF_CLI_CONFIG_FILE)')
    args = parser.parse_args(argv)
    mirror_dir = os.path.abspath(args.dir)
    if args.collections_path:
        collections = os.path.abspath(os.path.expanduser(args.collections_path))
        if not _collection.holds_collection(collections):
            sys.stderr.write('terraform-provider-netpool mirror: %s holds no ansible_collections/netpool/ipam (with its '
                             'public entry point, %s).\n' % (collections, _collection.API_FILE))
            return 2
    else:
        collections = _collection.locate()
        if collections is None:
            try:
                _collection.ensure()
            except _collection.CollectionNotFound as e:
                sys.stderr.write('terraform-provider-netpool mirror: %s\n' % e)
                return 2
    path = write(mirror_dir, collections)
    if args.cli_config:
        with open(args.cli_config, 'w') as f:
            f.write(cli_config(mirror_dir))
    sys.stdout.write('Wrote %s\n(the netpool.ipam collection: %s)\n\n' % (path, collections or 'on sys.path'))
    sys.stdout.write('Terraform CLI configuration (~/.terraformrc, or the file TF_CLI_CONFIG_FILE names)%s:\n\n%s\n'
                     % (', written to %s' % args.cli_config if args.cli_config else '', cli_config(mirror_dir)))
    sys.stdout.write('In your Terraform configuration:\n\n%s' % required_providers())
    return 0
