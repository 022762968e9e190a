# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A PostgreSQL server of a test's own, on a loopback port: to restart, pause and stop it.

The machine's shared server (postgresql_server.py) is never restarted by a test. This one is made with
``initdb`` in a temporary directory (trust authentication, 127.0.0.1 and a Unix socket in its own
directory), started with ``pg_ctl`` and removed afterwards. The binaries are those of
``NETPOOL_IPAM_TEST_PG_BIN``, else the newest ``/usr/lib/postgresql/*/bin`` (Debian's postgresql package,
which the machine's server comes from). ``initdb`` refuses to run as root: as root it runs as the
``postgres`` OS user (``runuser``). Where it cannot run the test skips, saying why, unless
``NETPOOL_IPAM_TEST_POSTGRESQL=required`` (CI): then it fails.
"""

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

import psycopg

from ansible_collections.netpool.ipam.tests.support import postgresql_server as server


def wait_until(condition, what, timeout=600):
    """Return once ``condition()`` is true (asked every 50 ms); fail, saying ``what``, after ``timeout`` seconds
    (a bound for a broken test, never a verdict)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError('%s did not happen within %d s' % (what, timeout))
        time.sleep(0.05)


def _bin_dir():
    given = os.environ.get('NETPOOL_IPAM_TEST_PG_BIN')
    if given:
        return given
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/initdb'), key=lambda p: int(p.split('/')[-3]))
    return os.path.dirname(found[-1]) if found else None


class OwnServer(object):
    """One PostgreSQL server of the test's own. ``with OwnServer() as pg:`` starts it and removes it at the end."""

    def __init__(self):
        self.bin = _bin_dir()
        if self.bin is None:
            server._unavailable('no initdb in /usr/lib/postgresql/*/bin (install the postgresql package, or set '
                                'NETPOOL_IPAM_TEST_PG_BIN)')
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam('postgres')
            except KeyError:
                server._unavailable('initdb refuses to run as root and there is no postgres OS user to run it as')
        self.dir = tempfile.mkdtemp(prefix='netpool-pg-')
        self.data = os.path.join(self.dir, 'data')
        self.log = os.path.join(self.dir, 'server.log')
        self.port = server.free_port()
        if self.user is not None:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.dir, 0o755)

    def _run(self, *argv, **kwargs):
        if self.user is not None:
            argv = ('runuser', '-u', 'postgres', '--') + argv
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                              cwd=self.dir, check=False, **kwargs)

    def _ctl(self, *args):
        done = self._run(os.path.join(self.bin, 'pg_ctl'), '-D', self.data, '-l', self.log, '-w', '-t', '300', *args)
        if done.returncode != 0:
            raise AssertionError('pg_ctl %s failed: %s\n%s' % (' '.join(args), done.stdout, self.log_text()))

    def log_text(self, tail=4000):
        """The server's log (its last ``tail`` characters; None: all of it)."""
        try:
            with open(self.log) as f:
                return f.read()[-tail:] if tail else f.read()
        except OSError:
            return ''

    def __enter__(self):
        done = self._run(os.path.join(self.bin, 'initdb'), '-D', self.data, '-A', 'trust', '-U', 'postgres',
                         '--no-sync', '-E', 'UTF8', '--locale', 'C')
        if done.returncode != 0:
            self._remove()
            server._unavailable('initdb failed: %s' % done.stdout.strip()[-1000:])
        with open(os.path.join(self.data, 'postgresql.conf'), 'a') as conf:
            conf.write("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\n"
                       'max_connections = 60\nfsync = off\nshared_buffers = 16MB\n' % (self.port, self.dir))
        self.start()
        return self

    def __exit__(self, *exc):
        self.resume()
        self._run(os.path.join(self.bin, 'pg_ctl'), '-D', self.data, '-m', 'immediate', '-w', 'stop')
        self._remove()

    def _remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self):
        self._ctl('start')

    def stop(self):
        self._ctl('-m', 'fast', 'stop')

    def restart(self):
        """What ``pg_ctlcluster 15 main restart`` does: a fast shutdown (sessions ended), then a start."""
        self._ctl('-m', 'fast', 'restart')

    def pids(self):
        """The postmaster and every process it started."""
        with open(os.path.join(self.data, 'postmaster.pid')) as f:
            main = int(f.readline())
        pids = [main]
        for stat in glob.glob('/proc/[0-9]*/stat'):
            try:
                with open(stat) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == main:
                pids.append(int(stat.split('/')[2]))
        return pids

    def pause(self):
        """SIGSTOP the whole server (a frozen VM): connections stay open and nothing answers."""
        pids = self.pids()
        os.kill(pids[0], signal.SIGSTOP)      # the postmaster first: it starts no backend meanwhile
        self._paused = [pids[0]]
        for pid in self.pids()[1:]:
            try:
                os.kill(pid, signal.SIGSTOP)
                self._paused.append(pid)
            except ProcessLookupError:
                pass    # a backend that ended meanwhile

    def resume(self):
        for pid in getattr(self, '_paused', ()):
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        self._paused = ()

    def unanswered(self):
        """How many client connections to the server hold bytes it has not read (the kernel's receive queue of
        its side of each connection, from /proc/net/tcp): while it is paused, requests waiting on it."""
        waiting = 0
        for table in ('/proc/net/tcp', '/proc/net/tcp6'):
            try:
                with open(table) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                local_port = int(fields[1].rsplit(':', 1)[1], 16)
                rx_queue = int(fields[4].split(':')[1], 16)
                if local_port == self.port and fields[3] == '01' and rx_queue > 0:     # 01: ESTABLISHED
                    waiting += 1
        return waiting

    def dsn(self, dbname='postgres'):
        return 'postgresql://postgres@127.0.0.1:%d/%s' % (self.port, dbname)

    def connect(self):
        return psycopg.connect(self.dsn(), autocommit=True, connect_timeout=10)

    def wait_ready(self, timeout=120):
        end = time.monotonic() + timeout
        while True:
            try:
                with self.connect():
                    return
            except psycopg.Error:
                if time.monotonic() > end:
                    raise
                time.sleep(0.2)
