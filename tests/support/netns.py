# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Two network namespaces joined by a veth pair, for the probe tests: the controller's side (``ctl``) and the
hosts' side (``hosts``), where the addresses given answer ICMP echo and ARP like running hosts.

Needs root, ``ip`` (iproute2), ``ping`` and ``arping`` (tests/utils/probe-tools.sh installs them; ``make units``
runs it). Without them the test skips with the reason, unless ``NETPOOL_IPAM_TEST_NETNS=required`` (CI): then it
fails. The namespaces have names unique to the test run and are removed by the fixture's finalizer.
"""

import os
import shutil
import subprocess
import uuid

import pytest

REQUIRED = os.environ.get('NETPOOL_IPAM_TEST_NETNS') == 'required'
PATH = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/sbin'])


def unavailable(reason):
    msg = ('%s: the probe tests run ICMP and ARP between two network namespaces. Run them as root after '
           'tests/utils/probe-tools.sh (make units does); NETPOOL_IPAM_TEST_NETNS=required makes this a failure.'
           % reason)
    if REQUIRED:
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def ip(*argv):
    subprocess.run([shutil.which('ip', path=PATH)] + list(argv), check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)


class Link(object):
    """``ctl`` and ``hosts``, two namespaces; ``ctl`` has ``CTL`` on its end of the veth, ``hosts`` the
    addresses given to ``host``."""

    CTL = ('10.77.0.1/24', 'fd77::1/64')

    def __init__(self):
        tag = uuid.uuid4().hex[:8]
        self.ctl, self.hosts = 'npc-%s' % tag, 'nph-%s' % tag
        self.ctl_dev, self.hosts_dev = 'npc%s' % tag, 'nph%s' % tag

    def make(self):
        ip('netns', 'add', self.ctl)
        ip('netns', 'add', self.hosts)
        ip('link', 'add', self.ctl_dev, 'netns', self.ctl, 'type', 'veth', 'peer', 'name', self.hosts_dev,
           'netns', self.hosts)
        for ns, dev in ((self.ctl, self.ctl_dev), (self.hosts, self.hosts_dev)):
            ip('-n', ns, 'link', 'set', 'lo', 'up')
            ip('-n', ns, 'link', 'set', dev, 'up')
        for cidr in self.CTL:
            ip('-n', self.ctl, 'addr', 'add', cidr, 'dev', self.ctl_dev, 'nodad')

    def host(self, *cidrs):
        """Give the hosts' side these addresses (``10.77.0.5/24``): they answer from now on."""
        for cidr in cidrs:
            ip('-n', self.hosts, 'addr', 'add', cidr, 'dev', self.hosts_dev, 'nodad')

    def run(self, argv, **kwargs):
        """Run ``argv`` in the controller's namespace."""
        kwargs.setdefault('stdin' if 'input' not in kwargs else 'input', subprocess.DEVNULL)
        return subprocess.run([shutil.which('ip', path=PATH), 'netns', 'exec', self.ctl] + list(argv),
                              capture_output=True, text=True, check=False, timeout=300,
                              **kwargs)

    def remove(self):
        for ns in (self.ctl, self.hosts):
            subprocess.run([shutil.which('ip', path=PATH), 'netns', 'delete', ns], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def link():
    """A ``Link`` (skips, or fails when required, where one cannot be made); the caller removes it."""
    if os.geteuid() != 0:
        unavailable('not root')
    for name in ('ip', 'ping', 'arping'):
        if shutil.which(name, path=PATH) is None:
            unavailable('%s is not installed' % name)
    made = Link()
    try:
        made.make()
    except subprocess.CalledProcessError as e:
        made.remove()
        unavailable('ip %s failed: %s' % (' '.join(e.cmd[1:]), (e.stderr or b'').decode('utf-8', 'replace').strip()))
    return made
