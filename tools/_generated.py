# -*- coding: utf-8 -*-
# Copyright (c) 2026 netpool.ipam engineers
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the documentation generators share (tools/docsite.py, tools/terraform_docs.py): write or check pages."""

import argparse
import os


def sync(description, pages, root, argv=None):
    """Write ``pages`` (relative path -> text) under ``root``, or with ``--check`` in ``argv`` write nothing.

    Returns ``(check, stale)``: whether it only checked, and the sorted paths whose text differs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--check', action='store_true', help='change nothing; exit 1 when a page is not up to date')
    args = parser.parse_args(argv)
    stale = []
    for rel, text in sorted(pages.items()):
        path = os.path.join(root, rel)
        try:
            with open(path) as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        stale.append(rel)
        if not args.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
    return args.check, stale
