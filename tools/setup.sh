#!/usr/bin/env bash
# Installs what hloscope's build and tests need on a fresh Debian 12 machine, and nothing that is
# already there. Safe to run again. Called by `npm start`, `npm test` and `npm run build`.
#   tools/setup.sh            everything (native + wasm + browser tests)
#   tools/setup.sh native     only the native build's packages
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

pkgs=(cmake make gcc pkg-config libjansson-dev libpcre2-dev libcmocka-dev zlib1g-dev python3) # python3: the pass-dump tests (JSON checks, a .zip)
if [ "$what" = all ]; then pkgs+=(emscripten chromium firefox-esr clang-14 libclang-rt-14-dev python3-venv); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} (Debian packages)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

if [ "$what" = all ]; then
  # jansson, pcre2 (and zlib, for the WASI build of the CLI) for the wasm build: Debian's source
  # tarballs, pinned and checksum-verified.
  deps=build/deps
  mkdir -p "$deps"
  sums="c739578bf6b764aa0752db9a2fdadcfe921c78f1228c7ec0bb47fa804c55d17b  jansson_2.14.orig.tar.gz
c33b418e3b936ee3153de2c61cc638e7e4fe3156022a5c77d0711bcbb9d64f1f  pcre2_10.42.orig.tar.gz
71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1  zlib_1.2.13.dfsg.orig.tar.bz2"
  if ! (cd "$deps" && echo "$sums" | sha256sum -c --quiet 2>/dev/null); then
    if ! grep -qs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; then
      echo "setup: adding deb-src lines for the configured Debian mirror"
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        $SUDO tee /etc/apt/sources.list.d/hloscope-deb-src.sources >/dev/null
      $SUDO apt-get update -q
    fi
    (cd "$deps" && apt-get source --download-only -q jansson=2.14-2 pcre2=10.42-1 zlib=1:1.2.13.dfsg-1 >/dev/null)
    (cd "$deps" && echo "$sums" | sha256sum -c --quiet) || { echo "setup: checksum mismatch in $deps" >&2; exit 1; }
  fi
  if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/esbuild ]; then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund
  fi
fi
