#!/usr/bin/env bash
# Install the independent QA checkers (Chromium, Java for vnu, npm tools). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y chromium chromium-driver fonts-liberation libxml2-utils \
    openjdk-17-jre-headless

PUPPETEER_SKIP_DOWNLOAD=1 CHROMEDRIVER_SKIP_DOWNLOAD=true npm ci --no-audit --no-fund
