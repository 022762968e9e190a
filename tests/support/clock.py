# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""A clock the tests move by hand (leases, reuse delay)."""


class Clock(object):
    """A clock the tests move by hand (leases, reuse delay)."""

    def __init__(self, t=1795000000.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds
