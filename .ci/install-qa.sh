#!/usr/bin/env bash
# Install the independent QA checkers used by `python -m tools.qa`: Debian Chromium,
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

# Node.js 20 or newer is a prerequisite (linkinator 7 and sitemap 9 need it).
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null; then
    echo "error: Node.js 20 or newer with npm is needed for the QA checkers" >&2
    exit 1
fi
# vnu.jar ships inside the vnu-jar package and runs on the system Java installed above;
# no browser is downloaded (Debian's chromium is used).
PUPPETEER_SKIP_DOWNLOAD=1 CHROMEDRIVER_SKIP_DOWNLOAD=true npm ci --no-audit --no-fund
