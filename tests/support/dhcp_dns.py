# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The real DHCP and DNS servers the publish tests use (installed by tests/utils/dhcp-dns-servers.sh,
which `make units` runs): their checkers, and a `named` of the test's own on 127.0.0.1.

A missing program skips the test with the reason, unless ``NETPOOL_IPAM_TEST_PUBLISH=required`` (CI):
then it fails.
"""

import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

REQUIRED = os.environ.get('NETPOOL_IPAM_TEST_PUBLISH') == 'required'
PATH = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/sbin'])


def program(name):
    """The path of ``name``; skip (or fail when required) without it."""
    found = shutil.which(name, path=PATH)
    if found is None:
        msg = ('%s is not installed: the publish tests check files with the real DHCP and DNS servers. '
               'Run tests/utils/dhcp-dns-servers.sh (make units does) as root; NETPOOL_IPAM_TEST_PUBLISH=required '
               'makes this a failure.' % name)
        if REQUIRED:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return found


def check(argv):
    """Run a checker: its exit code and its output (stdout and stderr)."""
    done = subprocess.run([program(argv[0])] + list(argv[1:]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=120, check=False)
    return done.returncode, done.stdout


def free_port():
    """A port free on 127.0.0.1 for both UDP and TCP, as far as can be told."""
    for _attempt in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.bind(('127.0.0.1', 0))
            port = udp.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
                try:
                    tcp.bind(('127.0.0.1', port))
                except OSError:
                    continue
                return port
    raise RuntimeError('no free port on 127.0.0.1')


class Named:
    """A named serving the zone files of ``zones`` ({name: path}) on 127.0.0.1:``port``, started in the
    foreground (its own process group) and stopped by its pid. ``reload()`` re-reads the zone files."""

    def __init__(self, directory, zones):
        self.directory = str(directory)
        self.port = free_port()
        self.conf = os.path.join(self.directory, 'named.conf')
        lines = ['options {',
                 '  directory "%s";' % self.directory,
                 '  listen-on port %d { 127.0.0.1; };' % self.port,
                 '  listen-on-v6 { none; };',
                 '  pid-file "%s/named.pid";' % self.directory,
                 '  recursion no;',
                 '  dnssec-validation no;',
                 '};',
                 'controls { };']           # no rndc channel on port 953
        lines += ['zone "%s" { type primary; file "%s"; };' % (name, path) for name, path in sorted(zones.items())]
        with open(self.conf, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        self.log = open(os.path.join(self.directory, 'named.log'), 'w')
        self.process = subprocess.Popen([program('named'), '-c', self.conf, '-g', '-u', 'root'],
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_for(lambda: self.dig(sorted(zones)[0], 'SOA'), 'to answer')

    def dig(self, name, rtype):
        """The answers of ``dig +short`` (a list of strings)."""
        return self._dig([name, rtype])

    def ptr(self, address):
        """The names of ``address`` (``dig -x``)."""
        return self._dig(['-x', address])

    def _dig(self, query):
        code, out = check(['dig', '@127.0.0.1', '-p', str(self.port), '+short', '+time=2', '+tries=1'] + query)
        return out.split() if code == 0 and ';;' not in out else []

    def wait_for(self, answered, what, seconds=30):
        """Poll until ``answered()`` is true (not a timed assertion: a slow machine only waits longer)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            result = answered()
            if result:
                return result
            time.sleep(0.2)
        with open(self.log.name) as f:
            raise AssertionError('named did not come %s within %ds; its log:\n%s' % (what, seconds, f.read()))

    def reload(self):
        self.process.send_signal(signal.SIGHUP)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
