# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""Probing a new dynamic address before it is handed out (the ``probe`` option): never hand out one that answers.

This is a private module: it may change at any time.

``Probe`` is the request (method, timeout, tries) and what it did (``report``); ``screen`` is the candidate filter
the service runs after free space gave the new dynamic reservations of a task their addresses: every candidate
of the task is probed at once (one *round*), each one that answered is recorded as held by a reservation of owner
``OWNER`` (so it is never probed again), its reservation takes the next free address, and the next round probes
those, until none answers. The probes are the system's ``ping`` (ICMP echo, IPv4 and IPv6) and ``arping`` (ARP,
IPv4, on the controller's interface on that subnet), from iputils (docs/developing.md says why), started together
as processes and waited for until the timeout.
"""

import json
import os
import shutil
import subprocess
import time

from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary import _checks, _intervals as iv
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._errors import (
    AddressInUse, InvalidArgument)
from ansible_collections.netpool.ipam.plugins.module_utils._vocabulary._model import Reservation

#: the values of ``probe``; ``probe_timeout`` (milliseconds) and ``probe_tries`` when not given (``_checks``)
METHODS, DEFAULT_TIMEOUT, DEFAULT_TRIES = _checks.PROBE_METHODS, _checks.PROBE_TIMEOUT, _checks.PROBE_TRIES
#: the owner of an address a probe found answering; its key is the address
OWNER = 'netpool.ipam.probe'
#: how long after its timeout a probe process that has not exited is stopped (the command's own start)
GRACE = 0.1
#: the system's commands, and the Debian package of each (what a message asks to install)
#: what each method sends
_WHAT = {'icmp': 'ICMP echo requests', 'arp': 'ARP requests'}
COMMANDS = {'icmp': ('ping', 'iputils-ping'), 'arp': ('arping', 'iputils-arping'), 'ip': ('ip', 'iproute2')}


def request(method=None, timeout=None, tries=None):
    """The ``Probe`` that the options ``probe``, ``probe_timeout`` and ``probe_tries`` ask for; None for ``none``
    (or none given). ``invalid_argument`` for a value out of its range (``_checks.probe_options``)."""
    return of(_checks.probe_options(method, timeout, tries))


def of(asked):
    """The ``Probe`` of a request's ``probe`` (``ReservationRequest``): a ``Probe`` given as it is, the checked
    ``(method, timeout, tries)`` of the options as a new one; None for none."""
    if asked is None or isinstance(asked, Probe):
        return asked
    return Probe(*asked)


def into(result, probe):
    """``result`` with what ``probe`` did (``probed``), when a probe was asked for."""
    if probe is not None:
        result['probed'] = probe.report()
    return result


class Probe(object):
    """One task's probing: ``method`` (``icmp`` or ``arp``), ``timeout`` (ms) and ``tries`` (the answering
    candidates one reservation may meet before the task fails), and what it did: ``rounds`` (each probes every
    candidate it is given at once), ``probed`` (addresses probed) and ``answered`` (those that answered)."""

    def __init__(self, method, timeout=DEFAULT_TIMEOUT, tries=DEFAULT_TRIES):
        self.method, self.timeout, self.tries = method, timeout, tries
        self.rounds, self.probed, self.answered = 0, 0, []

    def report(self):
        """What the result's ``probed`` says."""
        return {'method': self.method, 'timeout': self.timeout, 'tries': self.tries, 'rounds': self.rounds,
                'addresses': self.probed, 'answered': list(self.answered)}

    def answering(self, addresses):
        """Of ``addresses`` (``(version, n)``), those that answer, probed all at once: one round."""
        self.rounds += 1
        self.probed += len(addresses)
        texts = [iv.to_str(v, n) for v, n in addresses]
        if self.method == 'arp':
            found, commands = self._arp(addresses, texts)
        else:
            found, commands = set(), dict((i, _ping(self.timeout, text)) for i, text in enumerate(texts))
        found.update(_run(commands, self.timeout / 1000.0, self.method, texts))
        return set(addresses[i] for i in found)

    def _arp(self, addresses, texts):
        """ARP asks on the link: each address by the controller's interface on its subnet. The controller's own
        addresses are in use without asking (no host answers ARP for itself)."""
        if any(v == 6 for v, _n in addresses):
            raise InvalidArgument('probe: arp probes IPv4 addresses only (IPv6 has no ARP): give probe: icmp for a '
                                  'pool with IPv6 subnets, or family: ipv4.')
        interfaces = local_networks()
        found, commands = set(), {}
        for i, (v, n) in enumerate(addresses):
            on = [(name, local) for name, local, first, last in interfaces if first <= n <= last]
            if not on:
                raise InvalidArgument('probe: arp cannot probe %s: the controller has no interface on its subnet, '
                                      'and ARP does not cross a router. Give probe: icmp, or run the task on a '
                                      'controller with an interface on that subnet.' % texts[i])
            if any(local == n for _name, local in on):
                found.add(i)
            else:
                commands[i] = ['arping', '-q', '-f', '-c', '1', '-w', str(max(1, -(-self.timeout // 1000))),
                               '-I', on[0][0], texts[i]]
        return found, commands


def _ping(timeout, text):
    return ['ping', '-n', '-q', '-c', '1', '-W', '%.3f' % (timeout / 1000.0), text]


def _missing(method):
    command, package = COMMANDS[method]
    return InvalidArgument('probe: %s needs the %s command on the controller, which it does not find on PATH. '
                           'Install it (Debian and Ubuntu: apt-get install %s), or give probe: none.'
                           % (method, command, package))


def local_networks():
    """``(interface, address, first, last)`` of each IPv4 address of the controller's interfaces (``ip -j``)."""
    try:
        # on the controller, outside any module: no AnsibleModule.run_command to call
        # pylint: disable-next=ansible-bad-function
        out = subprocess.run(['ip', '-j', '-4', 'addr', 'show'], stdin=subprocess.DEVNULL, capture_output=True,
                             check=False, timeout=10)
    except OSError:
        raise _missing('ip')
    if out.returncode != 0:
        raise InvalidArgument('probe: arp cannot list the controller\'s interfaces: ip -j -4 addr show failed: %s'
                              % out.stderr.decode('utf-8', 'replace').strip())
    found = []
    for link in json.loads(out.stdout.decode('utf-8') or '[]'):
        for a in link.get('addr_info', ()):
            if a.get('family') == 'inet' and 'local' in a:
                network = iv.parse_network('%s/%s' % (a['local'], a['prefixlen']), strict=False)
                found.append((link['ifname'], int(network.ip), network.first, network.last))
    return found


def _run(commands, timeout, method, texts):
    """Start every command of ``commands`` (index -> argv) at once and wait for them until ``timeout`` seconds
    (and ``GRACE``) after each started: the indexes of those that exited 0 (an answer). A command that writes
    to its standard error (no permission, no route) fails the task ``invalid_argument`` with what it said."""
    started, env = {}, dict(os.environ, LC_ALL='C')
    path = dict((argv[0], shutil.which(argv[0]) or argv[0]) for argv in commands.values())
    try:
        for i, argv in commands.items():
            try:
                # an absolute path and close_fds=False let Python start it with posix_spawn (no fork of this
                # process: a hundred start in tens of milliseconds); what this process opened is not inheritable
                # pylint: disable-next=ansible-bad-function
                started[i] = (subprocess.Popen([path[argv[0]]] + argv[1:], stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                                               close_fds=False), time.monotonic())
            except FileNotFoundError:
                raise _missing(method)
            except OSError as e:    # a command with capabilities this process may not pass on: no permission
                raise InvalidArgument('probe: %s cannot run %s on this controller (%s), so no address was handed '
                                      'out. Probing needs the permission to send %s; give probe: none to reserve '
                                      'without probing.' % (method, argv[0], e.strerror, _WHAT[method]))
        answered, failed = set(), []
        for i, (process, at) in started.items():
            try:
                code = process.wait(max(0.0, at + timeout + GRACE - time.monotonic()))
            except subprocess.TimeoutExpired:
                continue    # no answer in time: stopped below
            said = process.stderr.read().decode('utf-8', 'replace').strip()
            if code == 0:
                answered.add(i)
            elif said:
                failed.append('%s: %s' % (texts[i], said))
        if failed:
            raise InvalidArgument('probe: %s cannot probe from this controller, so no address was handed out '
                                  '(%s). Probing needs the permission to send %s and a route to the subnet; '
                                  'give probe: none to reserve without probing.'
                                  % (method, '; '.join(failed[:3]) + (' and %d more' % (len(failed) - 3)
                                                                      if len(failed) > 3 else ''),
                                     _WHAT[method]))
        return answered
    finally:    # every one stopped first, then every one waited for: each dies while the next is stopped
        for process, _at in started.values():
            if process.poll() is None:
                process.kill()
        for process, _at in started.values():
            process.wait()
            process.stderr.close()


def screen(service, pool, fresh, version, probe):
    """The candidate filter: give the new dynamic reservations ``fresh`` free addresses, probe them (all at once),
    record each that answered as held (``found``) and give its reservation the next free address, round after
    round until none answers. ``address_in_use`` once one reservation met ``probe.tries`` answering candidates:
    the task fails and its transaction writes nothing."""
    service.allocate(pool, fresh, version)
    met, pending = dict((id(r), 0) for r in fresh), list(fresh)
    while pending:
        answered = probe.answering([(r.version, r.address) for r in pending])
        pending = [r for r in pending if (r.version, r.address) in answered]
        for r in pending:
            found(service, pool, r, probe)
            met[id(r)] += 1
            if met[id(r)] >= probe.tries:
                raise AddressInUse(
                    "%d addresses of pool '%s' answered a %s probe for %s/%s (%s), so none was handed out. Free "
                    "those addresses, give probe_tries more than %d, or give the pool a range where hosts do not "
                    "answer." % (len(probe.answered), pool.name, probe.method, r.owner, r.key,
                                 ', '.join(probe.answered[:8]) + (', ...' if len(probe.answered) > 8 else ''),
                                 probe.tries), answered=list(probe.answered))
            r.version = r.address = None
        if pending:
            service.allocate(pool, pending, version)


def found(service, pool, r, probe):
    """Record the address candidate ``r`` was given as held by ``OWNER`` (key: the address), saying how and when
    the probe found it and for whom; in history as a reservation made by the probe."""
    now = service.stamp()
    text = r.address_str
    holder = Reservation(pool.namespace, pool.name, OWNER, text, r.version, r.address, static=True,
                         metadata={'found_by': 'probe', 'probe': probe.method, 'probed_at': now,
                                   'probed_for': '%s/%s' % (r.owner, r.key)}, created_at=now, updated_at=now)
    # what allocating made of the candidate goes first: a store that allocates for itself (NetBox) holds it under
    # the candidate's owner already; a store of spans has no row for it (nothing to delete)
    service.store.delete_reservation(r)
    service.store.save_reservation(holder)
    service.record_history('reservation', 'reserve', pool.namespace, pool.name, new=holder.to_data(),
                           reservation=holder)
    probe.answered.append(text)
