# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a task retries on a store that talks to a server, for how long, and what the user then sees.

This is a private module: it may change at any time. The rule (docs/reliability.md, "Servers that go
away") is written here once; a store only says, on the error it raises, what kind of failure it was:

- ``CONNECT``: the store could not be reached (connection refused, reset, the server starting up or
  shutting down). Nothing was sent.
- ``TRANSACTION``: the transaction ended before its commit was sent (connection lost, the server shut
  down, a serialization failure or a deadlock): the server rolled it back, nothing of it was kept.
- ``COMMIT``: the commit was sent and its answer was lost. ``evidence`` is something the transaction
  wrote that only it can have written (its last history entry), or None.

``call`` runs the whole attempt again (the service call from its start, in a new transaction) with
backoff until the task's ``timeout`` has passed since the call started. A lost commit is resolved by
re-reading, never by guessing: before the next attempt, ``commit_landed(evidence)`` asks the store whether the
transaction is in it; the next attempt then finds what the store holds (a reservation made by the lost
commit is found, never made twice) and ``changed`` is true if either this attempt or the lost commit
made the change. Past the timeout the last error is raised with what was tried added to its message.
Any other error is raised at once. ``mark`` may say what happened in the store's own words (``said``: a
request not answered in time is not a transaction rolled back) and how long the server asked to be left alone
(``after``: an HTTP ``Retry-After``): the next attempt waits that long if the deadline allows, else the error is
raised at once, as waiting past the deadline could not help.

``watch(give_up)`` arms the process's one watchdog thread (``Watchdog``) for the deadline of the running
``call``: a store whose wait on a server could outlast it calls ``give_up`` then (from the watchdog's thread).
One thread per process serves every transaction of that process, started once (and again in a forked child,
which does not inherit it); a transaction costs a lock and a dict entry, not a thread.
"""

import contextlib
import heapq
import itertools
import os
import random
import threading
import time

CONNECT = 'connect'
TRANSACTION = 'transaction'
COMMIT = 'commit'

#: what each kind of failure was, in the message listing what was tried
_SAID = {CONNECT: 'could not connect', TRANSACTION: 'transaction rolled back by a lost connection or the server',
         COMMIT: 'answer to a commit lost'}

#: the first wait between attempts, and the longest (seconds); each wait doubles, with jitter
FIRST_WAIT = 0.05
LONGEST_WAIT = 1.0

_this_thread = threading.local()


def mark(error, kind, evidence=None, said=None, after=None):
    """``error`` (an ``IpamError``) marked as a failure ``call`` may retry; returns it. ``said``: what happened, in
    the words of the list of what was tried (by default the kind's); ``after``: the seconds the server asked to be
    left alone before the next attempt (an HTTP ``Retry-After``), waited if the deadline allows, else given up at
    once."""
    error.retry = kind
    error.evidence = evidence
    error.said = said
    error.after = after
    return error


def kind_of(error):
    """The kind ``mark`` gave ``error``, or None: not to be retried."""
    return getattr(error, 'retry', None)


def remaining():
    """Seconds left before the deadline of the ``call`` running in this thread (by its clock), or None outside one."""
    deadline = getattr(_this_thread, 'deadline', None)
    return None if deadline is None else max(0.0, deadline - _this_thread.clock())


class Watchdog(object):
    """One thread that calls each armed ``give_up`` at its deadline (``time.monotonic()``) unless disarmed first.

    The thread sleeps until the earliest deadline it knows of; arming a later deadline does not wake it (it
    finds the new one when it wakes), so a transaction that ends before its deadline (all of them, but for a
    server that does not answer) costs no switch to the watchdog's thread.
    """

    def __init__(self):
        self._pid = self._lock = self._wakes_at = self._tokens = None
        self._armed, self._queue = {}, []

    def _start(self):
        """A fresh lock, queue and thread: in a new process (a fork does not inherit the parent's thread)."""
        self._pid = os.getpid()
        self._lock = threading.Condition(threading.Lock())
        self._armed = {}            # token -> give_up
        self._queue = []            # (deadline, token), the earliest first; disarmed tokens are skipped
        self._wakes_at = None       # when the thread wakes next (None: only when notified)
        self._tokens = itertools.count()
        thread = threading.Thread(target=self._run, name='netpool-ipam-watchdog')
        thread.daemon = True
        thread.start()

    def arm(self, deadline, give_up):
        """Call ``give_up()`` at ``deadline`` unless ``disarm(token)`` comes first; returns the token."""
        if self._pid != os.getpid():
            self._start()
        with self._lock:
            token = next(self._tokens)
            self._armed[token] = give_up
            while self._queue and self._queue[0][1] not in self._armed:    # the ended transactions' entries
                heapq.heappop(self._queue)
            heapq.heappush(self._queue, (deadline, token))
            if self._wakes_at is None or deadline < self._wakes_at:
                self._lock.notify()
        return token

    def disarm(self, token):
        with self._lock:
            self._armed.pop(token, None)

    def _run(self):
        lock = self._lock
        while True:
            due = []
            with lock:
                now = time.monotonic()
                while self._queue and (self._queue[0][1] not in self._armed or self._queue[0][0] <= now):
                    _deadline, token = heapq.heappop(self._queue)
                    give_up = self._armed.pop(token, None)
                    if give_up is not None:
                        due.append(give_up)
                if not due:
                    self._wakes_at = self._queue[0][0] if self._queue else None
                    lock.wait(None if self._wakes_at is None else max(0.0, self._wakes_at - now))
                    self._wakes_at = now    # awake: an arm meanwhile need not notify
            for give_up in due:
                try:
                    give_up()
                except Exception:  # pylint: disable=broad-except
                    pass    # the watchdog outlives a store that could not be given up on


_WATCHDOG = Watchdog()


@contextlib.contextmanager
def watch(give_up):
    """Inside a ``call``: ``give_up()`` is called (from another thread) if the block is still running at the call's
    deadline. Outside one, nothing is armed."""
    left = remaining()
    if left is None:
        yield
        return
    token = _WATCHDOG.arm(time.monotonic() + left, give_up)
    try:
        yield
    finally:
        _WATCHDOG.disarm(token)


def call(attempt, timeout, commit_landed=None, sleep=time.sleep, rng=random.random, clock=time.monotonic):
    """``attempt()`` (a task's result dict), retried as the module's docstring says within ``timeout`` seconds of
    ``clock`` (``remaining`` reads it too).

    ``commit_landed(evidence)``: whether the transaction that wrote ``evidence`` is in the store (it may raise a
    retryable error too).
    """
    start = clock()
    deadline = start + timeout
    tried = []          # (seconds since start, what happened) of every failed attempt
    lost = []           # evidence of lost commits not resolved yet
    made = False        # a lost commit of this call was found applied
    outer = getattr(_this_thread, 'deadline', None)
    outer_clock = getattr(_this_thread, 'clock', None)
    while True:
        _this_thread.deadline = deadline if outer is None else min(deadline, outer)
        _this_thread.clock = clock
        try:
            while lost:
                if commit_landed is not None and commit_landed(lost[0]):
                    made = True
                lost.pop(0)
            result = attempt()
        except Exception as e:  # pylint: disable=broad-except
            kind = kind_of(e)
            if kind is None or outer is not None:   # an inner call leaves the retrying to the outer one
                raise
            tried.append((clock() - start, getattr(e, 'said', None) or _SAID[kind]))
            if kind == COMMIT and getattr(e, 'evidence', None) is not None:
                lost.append(e.evidence)
            wait = min(LONGEST_WAIT, FIRST_WAIT * 2 ** (len(tried) - 1)) * (0.5 + rng())
            wait = max(wait, getattr(e, 'after', None) or 0)      # what the server asked for, if more
            if clock() + wait >= deadline:
                raise _given_up(e, tried, timeout, lost)
            sleep(wait)
            continue
        finally:
            _this_thread.deadline, _this_thread.clock = outer, outer_clock
        if made and isinstance(result, dict):
            result['changed'] = True
        return result


def _given_up(error, tried, timeout, lost):
    """``error`` with what was tried within ``timeout`` added to its message."""
    kinds = []
    for _at, said in tried:
        if said not in kinds:
            kinds.append(said)
    said = ('Tried %d time%s within the task\'s timeout of %s seconds (%s), over %.1f seconds; raise timeout to '
            'wait longer.' % (len(tried), '' if len(tried) == 1 else 's', timeout, ', '.join(kinds), tried[-1][0]))
    if lost or kind_of(error) == COMMIT:
        said += (' A commit was sent and its answer lost, and the store could not be read again since: the change '
                 'may or may not have been kept. Rerunning the task is safe: it finds it, or makes it.')
    error.msg = '%s %s' % (error.msg.rstrip(), said)
    error.args = (error.msg,)
    error.retry = None
    return error
