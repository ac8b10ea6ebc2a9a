#!/usr/bin/env bash
# Install Debian's chromium for the report's browser test (tests/test_report_browser.py), when it
# is missing and apt-get is available; without it that test is skipped, and this says so.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; fi
  { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      chromium; } >/dev/null 2>&1 || echo "note: chromium not installed; browser test skipped" >&2
fi
exit 0
