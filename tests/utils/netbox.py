# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A real NetBox on 127.0.0.1 for the tests: installed, migrated and served by this script.

    python3 tests/utils/netbox.py install   # venv + migrated template database (cached)
    python3 tests/utils/netbox.py status    # what is installed, or why nothing is

What is slow is done once per machine and kept under ``$NETPOOL_IPAM_NETBOX_CACHE``
(default ``~/.cache/netpool-ipam/netbox-<version>``): the virtualenv (pip install
netbox, about 80 s) and a migrated database on the machine's PostgreSQL used as
a template (``netbox migrate``: 5-9 minutes). A test run then copies the
template into a database of its own (seconds), serves it with gunicorn on a
free loopback port, and drops both afterwards (:func:`serve`).

NetBox needs Python >= 3.12, Debian's ``libpq-dev`` and ``gcc`` (it builds
psycopg-c), the PostgreSQL on 127.0.0.1:5432 (trust auth for ``postgres``) and
the Redis on 127.0.0.1:6379. ``status`` says which of these is missing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import ctypes
import fcntl
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

VERSION = '4.7.3'
CACHE = os.environ.get('NETPOOL_IPAM_NETBOX_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'netpool-ipam', 'netbox-' + VERSION)
VENV = os.path.join(CACHE, 'venv')
TEMPLATE = 'netpool_netbox_%s_template' % VERSION.replace('.', '_')
PG_HOST, PG_PORT, PG_USER = '127.0.0.1', 5432, 'postgres'
REDIS_DB = 14  # tasks and caching of the test NetBox; nothing else of the project uses Redis

# Test credentials: loopback only, in throw-away databases. v1 tokens are 40 hex characters.
TOKENS = {
    'write': '0123456789abcdef0123456789abcdef01234567',
    'read': 'fedcba9876543210fedcba9876543210fedcba98',
}
V2_KEY, V2_TOKEN = 'netpooltest0', '89abcdef0123456789abcdef0123456789abcdef'
PEPPER = 'netpool-ipam-test-pepper-' + 'x' * 40

CONFIGURATION = '''\
import os
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
DATABASES = {'default': {
    'ENGINE': 'django.db.backends.postgresql',
    'NAME': os.environ['NETPOOL_NETBOX_DB'],
    'USER': %(user)r, 'PASSWORD': '', 'HOST': %(host)r, 'PORT': %(port)r, 'CONN_MAX_AGE': 300,
}}
REDIS = {
    'tasks': {'HOST': '127.0.0.1', 'PORT': 6379, 'PASSWORD': '', 'DATABASE': %(redis)d, 'SSL': False},
    'caching': {'HOST': '127.0.0.1', 'PORT': 6379, 'PASSWORD': '', 'DATABASE': %(redis)d, 'SSL': False},
}
SECRET_KEY = %(secret)r
API_TOKEN_PEPPERS = {1: %(pepper)r}
ISOLATED_DEPLOYMENT = True
CENSUS_REPORTING_ENABLED = False
RELEASE_CHECK_URL = None
'''

TOKEN_SCRIPT = '''\
from users.models import Token, User
u = User.objects.get(username='admin')
Token.objects.create(user=u, version=1, token=%(write)r, write_enabled=True, description='netpool tests')
Token.objects.create(user=u, version=1, token=%(read)r, write_enabled=False, description='netpool tests, read-only')
Token.objects.create(user=u, version=2, key=%(v2key)r, token=%(v2token)r, write_enabled=True, description='v2')
'''


class Unavailable(Exception):
    """NetBox cannot be installed or served here; the message says why and what to do."""


def _python312():
    """The newest Python 3.12+ interpreter: pyenv's versions, else python3.1x on PATH."""
    root = os.environ.get('PYENV_ROOT') or os.path.expanduser('~/.pyenv')
    found = sorted(glob.glob(os.path.join(root, 'versions', '3.1[2-9].*', 'bin', 'python3.1[2-9]')))
    for name in ('python3.13', 'python3.12'):
        path = shutil.which(name)
        if path and not path.startswith(os.path.join(root, 'shims')):
            found.append(path)
    if not found:
        raise Unavailable('NetBox %s needs Python 3.12 or newer and none was found (pyenv versions or PATH)' % VERSION)
    return found[0]


def _reachable(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=2).close()
    except OSError:
        return False
    return True


def _psql(sql, database='postgres'):
    """Run one SQL statement with psql as the trust-auth superuser; the output, stripped."""
    done = subprocess.run(['psql', '-h', PG_HOST, '-p', str(PG_PORT), '-U', PG_USER, '-d', database,
                           '-XAtqc', sql], capture_output=True, text=True, check=False)
    if done.returncode:
        raise Unavailable('psql %r failed: %s' % (sql, done.stderr.strip()))
    return done.stdout.strip()


def missing():
    """Why NetBox cannot run here (a sentence), or None."""
    if not _reachable(PG_PORT):
        return 'no PostgreSQL answers on 127.0.0.1:%d' % PG_PORT
    if not _reachable(6379):
        return 'no Redis answers on 127.0.0.1:6379'
    if not shutil.which('psql'):
        return 'psql (Debian postgresql-client) is not installed'
    if not os.path.exists(os.path.join(VENV, '.installed')) and not shutil.which('pg_config'):
        return "libpq-dev is not installed (NetBox builds psycopg-c): apt-get install libpq-dev"
    try:
        _python312()
    except Unavailable as e:
        return str(e)
    return None


def _environ(database):
    env = dict(os.environ, NETBOX_ROOT=CACHE, NETPOOL_NETBOX_DB=database, PYTHONDONTWRITEBYTECODE='1')
    env['PATH'] = os.path.join(VENV, 'bin') + os.pathsep + env.get('PATH', '')
    env.pop('PYTHONPATH', None)
    # NetBox's virtualenv holds its own bytecode (pip compiled it at install): a PYTHONPYCACHEPREFIX inherited from
    # the test run would make Python look for bytecode there instead, find none, and compile Django and NetBox
    # again at every worker's start.
    env.pop('PYTHONPYCACHEPREFIX', None)
    return env


def _netbox(args, database, **kwargs):
    return subprocess.run([os.path.join(VENV, 'bin', 'netbox')] + args, env=_environ(database),
                          cwd=CACHE, check=True, **kwargs)


def _install_venv():
    if os.path.exists(os.path.join(VENV, '.installed')):
        return
    shutil.rmtree(VENV, ignore_errors=True)
    os.makedirs(CACHE, exist_ok=True)
    subprocess.run([_python312(), '-m', 'venv', VENV], check=True)
    pip = [os.path.join(VENV, 'bin', 'python'), '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check']
    subprocess.run(pip + ['netbox==' + VERSION], check=True)     # it brings its own gunicorn
    conf = os.path.join(CACHE, 'conf')
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, 'configuration.py'), 'w') as f:
        f.write(CONFIGURATION % {'user': PG_USER, 'host': PG_HOST, 'port': PG_PORT, 'redis': REDIS_DB,
                                 'secret': uuid.uuid4().hex * 2, 'pepper': PEPPER})
    with open(os.path.join(conf, '__init__.py'), 'w'):
        pass
    with open(os.path.join(VENV, '.installed'), 'w') as f:
        f.write(VERSION + '\n')


def _template_ready():
    return _psql("SELECT 1 FROM pg_database WHERE datname = '%s'" % TEMPLATE) == '1'


def _install_template():
    if _template_ready():
        return
    work = TEMPLATE + '_making'
    _psql('DROP DATABASE IF EXISTS %s' % work)
    _psql('CREATE DATABASE %s' % work)
    _netbox(['migrate', '--no-input', '-v', '0'], work)
    env = {'DJANGO_SUPERUSER_PASSWORD': 'netpool-test-admin'}
    subprocess.run([os.path.join(VENV, 'bin', 'netbox'), 'createsuperuser', '--no-input', '--username', 'admin',
                    '--email', 'admin@example.invalid'], env=dict(_environ(work), **env), cwd=CACHE, check=True)
    script = TOKEN_SCRIPT % {'write': TOKENS['write'], 'read': TOKENS['read'], 'v2key': V2_KEY, 'v2token': V2_TOKEN}
    _netbox(['shell', '--no-imports', '-c', script], work)
    _psql('ALTER DATABASE %s RENAME TO %s' % (work, TEMPLATE))


def install():
    """Install (once per machine) what :func:`serve` needs; raise :class:`Unavailable` when it cannot."""
    why = missing()
    if why:
        raise Unavailable(why)
    os.makedirs(CACHE, exist_ok=True)
    # One installer at a time on a machine: a second one (another pytest worker, another checkout's tests)
    # waits here for the first, then finds the virtualenv and the template made.
    with open(os.path.join(CACHE, '.install.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_venv()
        _install_template()


def _free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _wait_ready(url, proc, deadline):
    import urllib.request
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Unavailable('gunicorn exited with %s before NetBox answered' % proc.returncode)
        request = urllib.request.Request(url + '/api/status/', headers={'Authorization': 'Token ' + TOKENS['read']})
        try:
            with urllib.request.urlopen(request, timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise Unavailable('NetBox did not answer %s/api/status/ within the start timeout' % url)


class Gunicorn(object):
    """NetBox served by gunicorn on a loopback port from one database: ``start``, ``stop`` and ``start`` again on
    the same port, as a service manager restarts it (``pid``: gunicorn's master, which leads the session of its
    workers)."""

    def __init__(self, database, port):
        self.database, self.port = database, port
        self.url = 'http://127.0.0.1:%d' % port
        self.log = os.path.join(CACHE, 'gunicorn-%d.log' % port)
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    def start(self, start_timeout=240):
        """Start gunicorn and wait until NetBox answers."""
        with open(self.log, 'a') as log:
            self.proc = subprocess.Popen([os.path.join(VENV, 'bin', 'gunicorn'), '--bind', '127.0.0.1:%d' % self.port,
                                          '--workers', '2', '--threads', '4', '--timeout', '120', 'netbox.wsgi'],
                                         env=_environ(self.database), cwd=_package_dir(), stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent)
        _wait_ready(self.url, self.proc, time.monotonic() + start_timeout)

    def stop(self):
        """What ``systemctl stop`` does: SIGTERM to the master, which stops listening and lets its workers finish
        the requests under way; SIGKILL after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@contextlib.contextmanager
def serve(start_timeout=240):
    """Yield ``{'url', 'tokens', 'v2_token', 'database', 'log', 'pid', 'gunicorn'}`` of a NetBox served on 127.0.0.1
    from a fresh copy of the template (``gunicorn``: the ``Gunicorn`` serving it, to restart it); stop it and drop
    the copy afterwards."""
    install()
    database = 'netpool_netbox_run_%s' % uuid.uuid4().hex[:12]
    _psql('CREATE DATABASE %s TEMPLATE %s' % (database, TEMPLATE))
    server = Gunicorn(database, _free_port())
    try:
        server.start(start_timeout)
        yield {'url': server.url, 'tokens': dict(TOKENS), 'v2_token': 'nbt_%s.%s' % (V2_KEY, V2_TOKEN),
               'database': database, 'log': server.log, 'pid': server.pid, 'gunicorn': server}
    finally:
        server.stop()
        _psql('DROP DATABASE IF EXISTS %s WITH (FORCE)' % database)


def _die_with_parent():
    """In the child: be sent SIGTERM when the process that started it dies (a test run killed midway)."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)     # PR_SET_PDEATHSIG


def _package_dir():
    """Where the installed ``netbox`` package's project root is (gunicorn imports ``netbox.wsgi`` from it)."""
    found = glob.glob(os.path.join(VENV, 'lib', 'python3.*', 'site-packages', 'netbox', 'wsgi.py'))
    if found:
        return os.path.dirname(os.path.dirname(found[0]))
    return CACHE


def main(argv):
    command = argv[1] if len(argv) > 1 else 'status'
    try:
        if command == 'install':
            install()
            print('NetBox %s ready: %s, template database %s' % (VERSION, VENV, TEMPLATE))
        elif command == 'status':
            why = missing()
            ready = os.path.exists(os.path.join(VENV, '.installed')) and not why and _template_ready()
            print(json.dumps({'version': VERSION, 'cache': CACHE, 'missing': why, 'installed': ready}))
        elif command == 'serve':
            with serve() as server:
                print(json.dumps(dict((k, v) for k, v in server.items() if k != 'gunicorn')), flush=True)
                signal.sigwait([signal.SIGINT, signal.SIGTERM])
        else:
            print('usage: netbox.py install | status | serve', file=sys.stderr)
            return 2
    except (Unavailable, subprocess.CalledProcessError) as e:
        print('NetBox unavailable: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
