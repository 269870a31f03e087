#!/usr/bin/env bash
# Install the independent QA checkers used by `python -m scholarsite.qa`: Debian Chromium,
# Java (for the Nu HTML Checker), fonts, xmllint, and the npm tools pinned in package-lock.json.
# Idempotent: apt is skipped when the packages are already installed; npm ci reinstalls exactly.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(chromium chromium-driver fonts-liberation libxml2-utils openjdk-17-jre-headless)
if ! dpkg -s "${APT_PACKAGES[@]}" >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y "${APT_PACKAGES[@]}"
fi

# The system Java is installed first, so vnu-jar's postinstall finds it and downloads nothing.
PUPPETEER_SKIP_DOWNLOAD=1 CHROMEDRIVER_SKIP_DOWNLOAD=true npm ci --no-audit --no-fund
