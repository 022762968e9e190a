# netpool.ipam build / test entry points. Every tool is used by its path in
# a virtualenv that this Makefile builds; nothing is installed by hand.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYENV_ROOT_DIR := $(shell pyenv root 2>/dev/null)
# Never the pyenv shims (the 3.12 shim fails while the global is 3.11):
# the interpreter under versions/, else whatever python3.X is on PATH.
PYTHON312 ?= $(or $(lastword $(sort $(wildcard $(PYENV_ROOT_DIR)/versions/3.12.*/bin/python3.12))),$(shell command -v python3.12 2>/dev/null),python3.12)
PYTHON313 ?= $(or $(lastword $(sort $(wildcard $(PYENV_ROOT_DIR)/versions/3.13.*/bin/python3.13))),$(shell command -v python3.13 2>/dev/null),python3.13)
PYTHON311 ?= $(or $(lastword $(sort $(wildcard $(PYENV_ROOT_DIR)/versions/3.11.*/bin/python3.11))),$(shell command -v python3.11 2>/dev/null),python3.11)

VENV     := .venv
VENV_MIN := .venv-min
VENV_220 := .venv-2.20
VENV_BUILD := .venv-build
STAMP     := $(VENV)/.requirements.stamp
STAMP_MIN := $(VENV_MIN)/.requirements.stamp
STAMP_220 := $(VENV_220)/.requirements.stamp
STAMP_BUILD := $(VENV_BUILD)/.requirements.stamp
LINK := collections/ansible_collections/netpool/ipam

# A part's prerequisites (its virtualenv, the Debian packages it uses): made first when the part runs alone, and left
# out when `make test` runs the parts (PARTS_ONLY=1), which makes them all beforehand. Left in, they would run again
# there (they are phony), and make starts a part that waits on one only after every part that does not.
needs = $(if $(PARTS_ONLY),,$(1))

# Let ansible-* find this checkout whatever ANSIBLE_CONFIG the caller has.
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/collections
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# The test runs keep bytecode, pytest's rewritten test modules included, in a cache outside the tree: with
# PYTHONDONTWRITEBYTECODE set (as on CI's machines) every pytest process would compile the whole suite again
# (about 7 s of CPU each, and the suite starts ten), and nothing is written into the checkout either way.
PYCACHE := $(HOME)/.cache/netpool-ipam/pycache
units-netbox units-rest units-min smoke-2.20 terraform release-check fuzz: export PYTHONPYCACHEPREFIX := $(PYCACHE)
units-netbox units-rest units-min smoke-2.20 terraform release-check fuzz: export PYTHONDONTWRITEBYTECODE :=

.PHONY: help venv venv-min venv-2.20 smoke-2.20 link demo demo-min units units-netbox units-rest units-min fuzz netbox terraform sanity integration \
        molecule lint test other-parts build clean bench-netbox bench-terraform dhcp-dns probe-tools release-check docs chromium

help:
	@echo "make venv | venv-min | venv-2.20 | smoke-2.20 | demo | demo-min | netbox | dhcp-dns | units | units-min | fuzz | terraform | sanity | integration | molecule | lint | release-check | docs | test | build | clean | bench-netbox | bench-terraform"

# --- environments --------------------------------------------------------

# collections/ is git-ignored: a fresh clone has no symlink.
link:
	@if [ ! -L $(LINK) ] || [ "$$(readlink $(LINK))" != "../../.." ]; then \
	  mkdir -p $(dir $(LINK)); rm -rf $(LINK); ln -s ../../.. $(LINK); \
	  echo "created $(LINK) -> ../../.."; fi

venv: $(STAMP) link

$(STAMP): requirements.txt requirements-dev.txt terraform/pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON312) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -r requirements.txt -r requirements-dev.txt
	@touch $@

venv-min: $(STAMP_MIN) link

$(STAMP_MIN): requirements-min.txt
	@test -x $(VENV_MIN)/bin/python || $(PYTHON311) -m venv $(VENV_MIN)
	$(VENV_MIN)/bin/python -m pip install --quiet -r requirements-min.txt
	@touch $@

venv-2.20: $(STAMP_220) link

$(STAMP_220): requirements-2.20.txt
	@test -x $(VENV_220)/bin/python || $(PYTHON313) -m venv $(VENV_220)
	$(VENV_220)/bin/python -m pip install --quiet -r requirements-2.20.txt
	@touch $@

# --- running -------------------------------------------------------------

demo: venv
	$(VENV)/bin/ansible-playbook -i playbooks/inventory/demo.yml playbooks/demo.yml

# The same smoke run on the oldest supported set (Python 3.11, ansible-core 2.19).
demo-min: venv-min
	$(VENV_MIN)/bin/ansible-playbook -i playbooks/inventory/demo.yml playbooks/demo.yml

# --- tests ---------------------------------------------------------------

# The oldest supported set (Python 3.11, ansible-core 2.19) runs the demo
# journey end to end on a fresh store, then again: the rerun must change nothing.
smoke-min: $(call needs,venv-min)
	tests/utils/smoke.sh $(VENV_MIN)

# The middle supported set (Python 3.13, ansible-core 2.20): the demo journey and its rerun, and every unit test
# that exercises ansible-core (marked ansible_core: tests/unit/conftest.py says which), but for NetBox's.
smoke-2.20: $(call needs,venv-2.20 dhcp-dns chromium probe-tools)
	tests/utils/smoke.sh $(VENV_220)
	$(VENV_220)/bin/pytest tests/unit -n 2 -m 'ansible_core and not netbox'

# A real NetBox for the NetBox store's tests: installed once per machine into its own virtualenv, with a
# migrated template database on the machine's PostgreSQL (tests/utils/netbox.py; 5-9 minutes the first time).
# Where it cannot run here, it says why and the NetBox tests skip (CI requires them).
NETBOX_INSTALL = $(VENV)/bin/python tests/utils/netbox.py install || [ "$${NETPOOL_IPAM_TEST_NETBOX:-}" != required ]
netbox: venv
	$(NETBOX_INSTALL)

# Kea, dnsmasq and BIND for the publish tests and the publish scenario (Debian packages, installed once when
# missing, no service started: tests/utils/dhcp-dns-servers.sh). Where they cannot be installed, it says why
# and those tests skip (CI requires them).
dhcp-dns:
	tests/utils/dhcp-dns-servers.sh

# iproute2, ping and arping for the probe tests (network namespaces, ICMP and ARP: tests/utils/probe-tools.sh;
# the tests skip without them and without root, CI requires them).
probe-tools:
	tests/utils/probe-tools.sh

# Debian's Chromium for the pool map's browser test (tests/utils/chromium.sh; the test skips without it).
chromium:
	tests/utils/chromium.sh

# The whole unit suite, once, on the newest set, in two parts at once: the tests of the real NetBox (marked
# netbox: tests/unit/conftest.py) on two workers, each against a NetBox of its own (a copy of the template
# database on a port of its own: tests/support/netbox_server.py), and the rest on two workers. The NetBox tests
# wait on NetBox most of the time (a test sends one request at a time), so two of them keep both cores busy once
# the other parts are done. --output-sync prints each part's output whole when it ends. (pytest-xdist's loadgroup
# would do this in one run, but its group mark is lost under pytest 9: it renames a test's id through a private
# attribute pytest no longer reads.)
units: venv dhcp-dns chromium probe-tools
	$(MAKE) --no-print-directory --keep-going --jobs=2 --output-sync=target PARTS_ONLY=1 units-netbox units-rest

units-netbox: $(call needs,venv dhcp-dns chromium probe-tools)
	$(NETBOX_INSTALL)
	$(VENV)/bin/pytest tests/unit -n 2 -m netbox

units-rest: $(call needs,venv dhcp-dns chromium probe-tools)
	$(VENV)/bin/pytest tests/unit -n 2 -m 'not netbox'

# The oldest supported set (Python 3.11, ansible-core 2.19, the lowest psycopg): the unit tests that exercise
# ansible-core, and the PostgreSQL store's own tests (marked lowest_pins), but for NetBox's. The rest (the
# conformance suite, the allocator, the state machines: module_utils alone, the same code on every ansible-core)
# runs once, in `units`. Two workers: the 2 cores CI has.
units-min: $(call needs,venv-min dhcp-dns chromium probe-tools)
	$(VENV_MIN)/bin/pytest tests/unit -n 2 -m '(ansible_core or lowest_pins) and not netbox'

# The property tests and state machines with new random examples, ten times the CI budget (tests/support/fuzz.py):
# outside CI, by hand or on a schedule. A failure it finds is replayed from .hypothesis/ until fixed.
fuzz: venv netbox
	NETPOOL_IPAM_TEST_FUZZ=long $(VENV)/bin/pytest -n 2 tests/unit/plugins/module_utils/_allocation/test_state_machine.py \
	  tests/unit/plugins/module_utils/_allocation/test_state_machine_dual.py tests/unit/plugins/module_utils/_vocabulary/test_intervals.py

# The Terraform provider end to end (tests/terraform): real terraform init/plan/apply/import/destroy on SQLite,
# JSON and PostgreSQL stores. terraform is not in the package registries: without it on PATH the tests skip
# and say so (.ci/run makes them mandatory where it is installed, NETPOOL_IPAM_TEST_TERRAFORM=required).
terraform: $(call needs,venv)
	$(VENV)/bin/pytest tests/terraform

# All sanity tests in one run: those of one Python on the controller's (3.12, the venv's), compile and import on
# every target Python 3.9-3.13 found (modules/module_utils run there: no 3.10+ syntax); a missing version is
# skipped with a warning. (Two runs, one with --python 3.12, did compile and import on 3.12 twice.)
sanity: $(call needs,venv)
	tests/utils/ansible-test.sh sanity --venv

integration: $(call needs,venv)
	tests/utils/ansible-test.sh integration --venv --python 3.12

molecule: $(call needs,venv dhcp-dns)
	tests/utils/molecule.sh

lint: $(call needs,venv)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/ansible-lint

# The release checks (tests/release) on the built tarball: galaxy-importer, antsibull-docs
# lint-collection-docs, antsibull-changelog lint, ansible-builder, the generated docs up to date, and README
# "Install" followed in a fresh virtualenv. Two workers, one per file: the install waits on pip most of its minute.
release-check: $(call needs,venv)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/pytest tests/release -n 2 --dist loadfile

# The antsibull-docs site (plugins, roles, guides, changelog) built by Sphinx with -W, offline: any warning of the
# collection's own fails it (tools/docsite_build.py). The site: build/docsite/build/html/index.html.
docs: $(call needs,venv)
	$(VENV)/bin/python tools/docsite_build.py

# What CI runs (.ci/run). First what is installed machine-wide, one after the other (apt takes one lock), then the
# three virtualenvs at once (38 s on a fresh clone, against 50 s one after the other); then every part, three at a
# time (PARTS_ONLY: none waits on a prerequisite). The NetBox tests, the longest part, start first at the normal
# priority; the other parts run beside them at a lower one (nice), two at a time, longest first, so that no long
# part is left running alone at the end. Measured on a fresh clone: the whole
# run 1,663 s before this order, 1,555 s with it; the NetBox tests take about as long either way beside the others
# (1,365 s, against 449 s alone): nice orders processes only within a session's scheduling group (the kernel's
# autogroup), and NetBox's gunicorn runs in a session of its own (docs/developing.md, "The whole run").
# --output-sync prints each part's output whole when it ends; --keep-going runs every part whatever another's
# verdict, and the run fails if any part did. `make PART` runs one part alone.
OTHER_PARTS := units-rest smoke-2.20 units-min terraform sanity molecule integration release-check lint docs smoke-min
test:
	$(MAKE) --no-print-directory dhcp-dns chromium probe-tools
	$(MAKE) --no-print-directory --jobs=3 --output-sync=target venv venv-min venv-2.20
	$(MAKE) --no-print-directory --keep-going --jobs=3 --output-sync=target PARTS_ONLY=1 units-netbox other-parts

# The parts of `make test` but the NetBox tests, at a lower priority (make test says why); two at a time, within
# make test's three.
other-parts:
	nice -n 10 $(MAKE) --no-print-directory --keep-going --output-sync=target PARTS_ONLY=1 $(OTHER_PARTS)

# The NetBox benchmark: 50 hosts reserve an address in a real NetBox through netpool.ipam and through
# netbox.netbox (docs/performance.md). The script keeps .venv-bench (ansible 14.5.0, pynetbox 7.9.0 pinned).
bench-netbox: link
	$(PYTHON312) bench/netbox.py

# The Terraform benchmark: terraform apply of 100 reservations, a plan with nothing to do, the provider's start-up
# (docs/performance.md).
bench-terraform: venv
	$(VENV)/bin/python bench/terraform.py

# The tarball needs ansible-galaxy alone: a small virtualenv with the ansible-core that requirements.txt pins, not
# the development tools of .venv (tests/release/test_release.py checks that the recipe installs nothing else).
$(STAMP_BUILD): requirements.txt
	@test -x $(VENV_BUILD)/bin/python || $(PYTHON312) -m venv $(VENV_BUILD)
	$(VENV_BUILD)/bin/python -m pip install --quiet "$$(grep -E '^ansible-core[=<>~!]' requirements.txt)"
	@touch $@

build: $(STAMP_BUILD)
	$(VENV_BUILD)/bin/ansible-galaxy collection build --force --output-path build/

clean:
	rm -rf $(VENV) $(VENV_MIN) $(VENV_BUILD) tests/output build .pytest_cache .hypothesis .ansible
	find . -path ./collections -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
