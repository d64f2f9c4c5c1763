"""What a test needs beyond the Python packages, and what to do when it is missing.

Each marker skips its tests where the thing is missing, with a reason that names the
package and the one command that makes those tests run (``pytest -ra`` lists the reasons
at the end of the run). CI installs and starts all of them (``.ci/run``), and there a skip
is a failure (``NOMERCY_NO_SKIPS``, tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil

import pytest

POSTGRES_URL = os.environ.get("NOMERCY_TEST_POSTGRES_URL")
POSTGRES_REASON = (
    "needs PostgreSQL: apt-get install postgresql, then run "
    'eval "$(bash tests/server/postgres.sh)" in this shell (a throwaway server on 127.0.0.1; '
    "it sets NOMERCY_TEST_POSTGRES_URL) and run the tests again"
)
#: The tests on the shared PostgreSQL database (tests/conftest.py groups them by this reason).
POSTGRES = pytest.mark.skipif(POSTGRES_URL is None, reason=POSTGRES_REASON)

NGINX_PATH = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
OPENSSL_PATH = shutil.which("openssl")
NGINX = pytest.mark.skipif(
    NGINX_PATH is None or OPENSSL_PATH is None,
    reason="needs nginx and openssl: apt-get install nginx openssl (the tests start their own nginx)",
)

CHROMIUM_PATH = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM = pytest.mark.skipif(
    CHROMIUM_PATH is None,
    reason="needs Debian's chromium: apt-get install chromium (Playwright drives it as it is)",
)

SYSTEMD_ANALYZE = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="needs systemd-analyze: apt-get install systemd",
)
