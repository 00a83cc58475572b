#!/usr/bin/env bash
# Installs the Debian packages Presence builds against, only when some are missing.
# Runs `apt-get update` once, then `apt-get install -y`. Needs root (or sudo) on a fresh machine.
set -euo pipefail

packages=(libcurl4-openssl-dev libpng-dev libjpeg-dev zlib1g-dev pkg-config)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing missing Debian packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
