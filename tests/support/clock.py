# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The one clock of the tests, moved by hand (leases, reuse delay, retries): what a test is given is decided, not
measured. tests/unit/conftest.py makes one per test (the ``clock`` fixture)."""


class Clock(object):
    """A clock the tests move by hand (leases, reuse delay), or that moves only when slept on (retries)."""

    def __init__(self, t=1795000000.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds

    #: what a retry's ``sleep`` is given: the clock moves by what it would have slept
    sleep = advance
