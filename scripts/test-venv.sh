#!/usr/bin/env bash
# Creates .build/test-venv with the test-only PyPI tools of Tests/OutsideClients/requirements.txt
# (schemathesis, standardwebhooks, cryptography), once per version of that file. The tests that use them are skipped,
# saying why, when this cannot be done (no python3, no network to PyPI); it never fails the build.
set -u
cd "$(dirname "$0")/.."
venv=${LIFECYCLE_TEST_VENV:-.build/test-venv}
requirements=Tests/OutsideClients/requirements.txt
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "test-venv: python3 not found; the tests of outside clients will be skipped"
  exit 0
fi
rm -rf "$venv"
if python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"; then
  echo "$want" > "$stamp"
  echo "test-venv: installed $(grep -c '==' "$requirements") pinned packages into $venv"
else
  rm -rf "$venv"
  echo "test-venv: could not install $requirements; the tests of outside clients will be skipped"
fi
exit 0
