# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The addresses of new reservations, planned at ``terraform plan``.

Terraform asks the provider to plan each resource on its own (ten at once), in a provider process that lives
for one command, and asks again, in another process, right before it applies each one: that second plan must
give what the first gave, or Terraform stops with "Provider produced inconsistent final plan". So:

- ``Planner`` plans from the store, which it only reads (``Service.free_addresses``, ``Service.returning``,
  ``Service.reservations``): an owner that holds an address already keeps it; an owner that left an address
  resting under the pool's reuse delay gets it back, and so does a reservation being replaced in a pool with a
  reuse delay (the destroy lets its address rest, the create takes it back); any other takes the next address
  the pool would hand out,
  skipping those planned for others in this process and in the ledger: the resources of one plan get distinct
  addresses, in the order Terraform asks for them, and a reservation planned anew by an apply (its values were
  unknown at plan) never takes one the plan gave another.
- ``Ledger`` keeps each planned address in a file of the provider's cache directory, by store and
  ``(namespace, pool, owner, key, family)``: the plan before an apply finds it there and gives it again. The
  apply reserves exactly it (``Service.reserve(planned=True)``), then forgets it. An address taken by someone
  else since it was planned fails that plan, naming the holder, and is forgotten: the next plan plans another.

Every method of ``Planner`` runs in the provider's store thread (``NetpoolProvider.run``), one at a time.
"""

import errno
import fcntl
import hashlib
import json
import os
import stat
import tempfile

#: the environment variable naming the provider's cache directory (``cert_cache_dir``)
CACHE_ENV = 'NETPOOL_TERRAFORM_CACHE'
#: addresses read from the store at once for the next new reservations of a pool
BATCH = 256


def _refusal(path):
    """Why ``path`` cannot be a directory only this user can use (created 0700 when missing), or None when it
    is one."""
    try:
        if not os.path.lexists(path):
            os.makedirs(path, mode=0o700)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return 'it is not a directory'
        if info.st_uid != os.getuid():
            return 'it is owned by uid %d, not by this user (uid %d)' % (info.st_uid, os.getuid())
        if info.st_mode & 0o077:
            return ('its mode is %04o: group or others may use it, and it holds the private key of the TLS '
                    'certificate the provider shows Terraform; chmod 700 %s' % (stat.S_IMODE(info.st_mode), path))
        probe = tempfile.NamedTemporaryFile(dir=path)
        probe.close()
        return None
    except OSError as e:
        return 'it cannot be created or written (%s)' % (e.strerror or e)


def _private_dir(path):
    """``path`` as a directory only this user can use (created 0700), or None if it cannot be."""
    return path if _refusal(path) is None else None


def cache_refusal():
    """Why the directory ``NETPOOL_TERRAFORM_CACHE`` names will not be used, or None (unset, or usable). The
    provider refuses to start then rather than keep its plans elsewhere: an apply in another process would look
    for them in the directory named and fail with "inconsistent final plan"."""
    path = os.environ.get(CACHE_ENV)
    reason = _refusal(path) if path else None
    if reason is None:
        return None
    return ('%s=%s is not used as the provider\'s cache: %s. Give a directory of this user with mode 0700, or '
            'unset %s (the provider then uses ~/.cache/netpool-terraform).' % (CACHE_ENV, path, reason, CACHE_ENV))


def cert_cache_dir():
    """Where the provider keeps the TLS certificate it shows Terraform (made once, valid 7 days) and the ledger
    of planned addresses (``Ledger``).

    ``NETPOOL_TERRAFORM_CACHE``, else ``$XDG_CACHE_HOME`` or ``~/.cache``, else a private directory in the
    system's temporary directory: a read-only (or missing) HOME only costs a certificate made at each start
    when no place at all can be written (about 30 ms).
    """
    home_cache = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    for path in (os.environ.get(CACHE_ENV), os.path.join(home_cache, 'netpool-terraform'),
                 os.path.join(tempfile.gettempdir(), 'netpool-terraform-%d' % os.getuid())):
        if path and _private_dir(path):
            return path
    return tempfile.mkdtemp(prefix='netpool-terraform-')


class Ledger(object):
    """The planned addresses of one store: a file of JSON lines ``[identity, address or null]``, appended to
    (a later line wins; null forgets), rewritten whole when it holds many forgotten lines. A file that cannot
    be read or written leaves the plans of this process only (an apply in another process then plans anew)."""

    def __init__(self, path):
        self._path = path
        self.entries = None
        #: the file appended to, opened at the first append and kept (an open per address planned cost more
        #: than the plan of it); opened again when another process has rewritten the file since
        self._appending = None

    @property
    def path(self):
        if callable(self._path):
            self._path = self._path()
        return self._path

    @classmethod
    def of(cls, directory, store):
        """The ledger of ``store`` in ``directory``. ``store`` is the store's location (``api.store_location``)
        or a function giving it, called at the ledger's first use: naming the store imports the service, which
        a provider start that never plans (the schema, a validation) must not pay."""
        def path():
            where = store() if callable(store) else store
            return os.path.join(directory, 'planned-%s.jsonl' % hashlib.sha256(where.encode()).hexdigest()[:20])
        return cls(path)

    def _load(self):
        if self.entries is not None:
            return
        self.entries, lines = {}, 0
        try:
            with open(self.path) as f:
                for line in f:
                    lines += 1
                    try:
                        ident, address = json.loads(line)
                    except ValueError:
                        continue        # a line cut short by a crash
                    if address is None:
                        self.entries.pop(tuple(ident), None)
                    else:
                        self.entries[tuple(ident)] = address
        except (IOError, OSError):
            return
        if lines > 2 * len(self.entries) + 1000:
            self._rewrite()

    def _rewrite(self):
        try:
            with open(self.path, 'a') as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                fd, tmp = tempfile.mkstemp(dir=os.path.dirname(self.path))
                with os.fdopen(fd, 'w') as f:
                    for ident, address in self.entries.items():
                        f.write(json.dumps([list(ident), address]) + '\n')
                os.replace(tmp, self.path)
        except (IOError, OSError):
            pass

    def _append(self, ident, address):
        line = (json.dumps([list(ident), address]) + '\n').encode()
        try:
            f = self._locked()
            try:
                while line:
                    line = line[f.write(line):]
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        except (IOError, OSError) as e:
            if e.errno not in (errno.EACCES, errno.EROFS, errno.ENOENT, errno.ENOSPC):
                raise

    def _locked(self):
        """The file to append to, locked: the one at ``path`` now. A rewrite (``_rewrite``, here or in another
        process) replaces the file while it holds the lock of the one it replaces, so a descriptor kept from
        before it is of a file nobody reads any more: once locked, it is checked against ``path`` and opened
        again if it is not the file there."""
        for _attempt in range(10):
            if self._appending is None:
                self._appending = open(self.path, 'ab', buffering=0)    # pylint: disable=consider-using-with
            fcntl.flock(self._appending, fcntl.LOCK_EX)
            try:
                here = os.stat(self.path)
            except OSError:
                here = None
            if here is not None and os.path.samestat(here, os.fstat(self._appending.fileno())):
                return self._appending
            fcntl.flock(self._appending, fcntl.LOCK_UN)
            self._appending.close()
            self._appending = None
        raise IOError(errno.ENOENT, 'the ledger %s keeps being replaced' % self.path)

    def get(self, ident):
        self._load()
        return self.entries.get(ident)

    def addresses(self, namespace, pool):
        """The addresses planned in ``pool`` of ``namespace``, for any owner."""
        self._load()
        return set(address for ident, address in self.entries.items() if ident[:2] == (namespace, pool))

    def put(self, ident, address):
        self._load()
        if self.entries.get(ident) != address:
            self.entries[ident] = address
            self._append(ident, address)

    def forget(self, ident):
        self._load()
        if self.entries.pop(ident, None) is not None:
            self._append(ident, None)


class PlannedAddressTaken(Exception):
    """The address planned for a reservation is held by another one now: ``holder`` is its reservation dict."""

    def __init__(self, address, holder):
        Exception.__init__(self, address)
        self.address = address
        self.holder = holder


class NoneLeft(Exception):
    """At apply, no free address is left for a reservation but those planned for others (``Planner.unplanned``):
    the message says so; the resource reports it as ``pool_exhausted``."""


class Planner(object):
    """The addresses planned by this provider process, over ``ledger``."""

    def __init__(self, ledger):
        self.ledger = ledger
        #: identity -> the reservation dict planned for it in this process
        self.planned = {}
        #: (namespace, pool) -> the addresses planned in this process
        self.taken = {}
        #: (namespace, pool) -> ({(owner, key): [reservation dicts]}, {address: reservation dict}) as read once
        self.held = {}
        #: (namespace, pool, family) -> free reservation dicts read and not handed out yet
        self.free = {}
        #: (namespace, pool) -> whether the pool has a reuse delay, as read once
        self.delays = {}
        #: identities whose current reservation this process planned to replace: it goes before the new one
        self.replacing = set()
        #: namespaces of the pools this process writes (an apply creating, changing or deleting pools)
        self.pools_changed = set()

    def pool_written(self, namespace):
        """This process (an apply) creates, changes or deletes a pool of ``namespace``. Terraform plans each new
        reservation again at apply: one that the plan planned no address for (its pool made by the same apply)
        is then left for the apply to allocate, not planned from pools that the apply is still changing (a child
        carved after the plan would make the address it planned no longer free)."""
        self.pools_changed.add(namespace)

    def _held(self, service, namespace, pool):
        if (namespace, pool) not in self.held:
            by_owner, by_address = {}, {}
            for r in service.reservations(namespace, pools=[pool])['reservations']:
                by_owner.setdefault((r['owner'], r['key']), []).append(r)
                by_address[r['address']] = r
            self.held[(namespace, pool)] = by_owner, by_address
        return self.held[(namespace, pool)]

    def plan(self, service, ident):
        """The reservation dict planned for ``ident`` ``(namespace, pool, owner, key, family)``, or None (no free
        address: the apply's reservation says why). ``PoolNotFound`` for a pool the store does not have (yet);
        ``PlannedAddressTaken`` for an address planned earlier that another reservation holds now."""
        if ident in self.planned:
            return self.planned[ident]
        namespace, pool, owner, key, family = ident
        if namespace in self.pools_changed and self.ledger.get(ident) is None:
            return None     # planned none at plan, and the pools are changing: the apply allocates it
        by_owner, by_address = self._held(service, namespace, pool)
        taken = self.taken.setdefault((namespace, pool), set())
        mine = [r for r in by_owner.get((owner, key), ()) if family is None or version(r['address']) == family]
        replacing = ident in self.replacing
        if replacing:
            mine = []
        found = None
        earlier = self.ledger.get(ident)
        if earlier is not None and earlier not in taken:
            holder = by_address.get(earlier)
            if holder is not None and (holder['owner'], holder['key']) != (owner, key):
                self.ledger.forget(ident)
                raise PlannedAddressTaken(earlier, holder)
            found = next((r for r in mine if r['address'] == earlier), None)
            if found is None and mine:
                self.ledger.forget(ident)
                raise PlannedAddressTaken(earlier, mine[0])
            if found is None:
                found = self._back(service, ident, taken, replacing)
                if found is not None and found['address'] != earlier:
                    found = None
            if found is None:
                found = self._free(service, namespace, pool, family, taken, earlier)
                if found is None:       # taken since this process read who holds what: read it again
                    self.ledger.forget(ident)
                    del self.held[(namespace, pool)]
                    raise PlannedAddressTaken(earlier, self._held(service, namespace, pool)[1].get(earlier))
        if found is None and mine:
            found = mine[0]
        if found is None:
            found = self._back(service, ident, taken, replacing)
        if found is None:
            found = self._free(service, namespace, pool, family, taken)
        if found is None:
            return None
        taken.add(found['address'])
        self.planned[ident] = found
        self.ledger.put(ident, found['address'])
        return found

    def _back(self, service, ident, taken, replacing):
        """The reservation dict of the address the owner of ``ident`` gets back (``Service.returning``): the one
        it left resting under the pool's reuse delay, or, ``replacing`` it, the one it holds (its release lets it
        rest for it); None when there is none, or this process planned it for another."""
        namespace, pool, owner, key, family = ident
        if not self._delayed(service, namespace, pool):
            return None
        found = service.returning(pool, owner, key, namespace=namespace, family=family, replacing=replacing)
        return None if found is None or found['address'] in taken else dict(found, static=False)

    def _delayed(self, service, namespace, pool):
        """Whether ``pool`` has a reuse delay: without one no address rests, and ``Service.returning`` gives
        nothing back (it is a read transaction per reservation, most of a plan's cost). Read once per pool, as
        who holds what is (``_held``); asked again each time in a namespace whose pools this process changes."""
        if namespace in self.pools_changed:
            return True
        if (namespace, pool) not in self.delays:
            self.delays[(namespace, pool)] = bool(service.info(namespace, pool=pool)['pools'][0]['reuse_delay'])
        return self.delays[(namespace, pool)]

    def _free(self, service, namespace, pool, family, taken, address=None):
        """The next free address's reservation dict (``address``: that one, if free), or None."""
        if address is not None:
            found = service.free_addresses(pool, namespace=namespace, family=family, at=address)
            return dict(found[0], static=False) if found else None
        queue = self.free.setdefault((namespace, pool, family), [])
        for attempt in (0, 1):
            while queue:
                r = queue.pop(0)
                if r['address'] not in taken:
                    return dict(r, static=False)
            if attempt == 0:
                # what the ledger holds for others: a plan's addresses that this process (an apply) has not
                # planned again yet, and must not give to a reservation it plans anew
                queue.extend(service.free_addresses(pool, namespace=namespace, family=family, count=BATCH,
                                                    skip=sorted(taken | self.ledger.addresses(namespace, pool))))
        return None

    def unplanned(self, service, ident):
        """At apply, the address for a new reservation that was planned none (its pool is made by the same apply,
        or had no free address left for it at plan): the first free one that this process did not plan for
        another reservation, which applies after it, as a reservation dict. None where this process planned
        nothing in the pool (the reservation then takes its address as any dynamic one); ``NoneLeft`` where the
        only free addresses left are the ones planned for others."""
        namespace, pool, owner, key, family = ident
        taken = self.taken.get((namespace, pool))
        if not taken or service.get(pool, owner, key, namespace=namespace, family=family) is not None:
            return None     # nothing planned here, or the owner holds its address already: reserving finds it
        found = service.free_addresses(pool, namespace=namespace, family=family, skip=sorted(taken))
        if not found:
            raise NoneLeft("Pool '%s' has no free %saddress left for %s/%s: the free ones are planned for other "
                           "reservations of this apply, which take them. Add a range or a subnet, or release "
                           "addresses, then apply again."
                           % (pool, {'ipv4': 'IPv4 ', 'ipv6': 'IPv6 '}.get(family, ''), owner, key))
        return dict(found[0], static=False)

    def applied(self, ident):
        """The reservation of ``ident`` is made (or failed for good): its planned address is not needed again."""
        self.ledger.forget(ident)


def version(address):
    """``ipv4`` or ``ipv6``: the family of an address string."""
    return 'ipv6' if ':' in address else 'ipv4'
