#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian's Chromium, ripgrep and build tools (apt),
# and a real VS Code as code-server, from the npm registry, into a prefix of its own.
#
# Role: the one reproducible way to get a working code-server on a fresh Debian machine
# that reaches only the npm registry and Debian's packages. The tests' support code
# (test/e2e/support/code-server.ts) finds it through the same CODE_SERVER_HOME.
#
# Invariants:
# - Idempotent: a marker file ($CODE_SERVER_HOME/.coroscope-installed) records the
#   code-server version, this recipe's revision and Node's module ABI; when it matches and
#   the native modules still load, the script only checks and exits (a few seconds).
# - Offline except for npm + apt: every npm step runs with --ignore-scripts (code-server's
#   postinstall and @vscode/ripgrep's download fail offline); the native addons are then
#   built from source with node-gyp against Node's local headers, ripgrep comes from Debian.
# - Never touches the project's own node_modules or package.json.
#
# Environment:
#   CODE_SERVER_HOME     install prefix (default: <project>/.vscode-test/code-server)
#   SKIP_APT=1           do not call apt-get (for a machine prepared by other means)
#   FORCE_REINSTALL=1    ignore the marker and run every step again
#
# Usage: bash test/e2e/setup/install-code-server.sh   (as root, from anywhere)
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
# Bump when the steps below change, so that existing installs are redone.
RECIPE_REVISION=1
REQUIRED_NODE_MAJOR=20
APT_PACKAGES=(chromium ripgrep libkrb5-dev build-essential python3 fonts-dejavu-core)
# Native addons of VS Code's server (lib/vscode) that npm would build in its install
# scripts. kerberos is built separately with build-from-source (its prebuild-install step
# tries GitHub first); @parcel/watcher ships a prebuilt linux binary as an optional
# dependency; @vscode/ripgrep's binary is copied from Debian's ripgrep.
VSCODE_GYP_ADDONS=(node-pty @vscode/spdlog native-watchdog @vscode/deviceid @vscode/windows-process-tree @vscode/windows-registry)
# What must load in-process for the server and the extension host to work.
VSCODE_NATIVE_MODULES=(node-pty @vscode/spdlog native-watchdog kerberos @parcel/watcher @vscode/deviceid)

started_at=$(date +%s)
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project_root=$(cd "$script_dir/../../.." && pwd)
CODE_SERVER_HOME=${CODE_SERVER_HOME:-$project_root/.vscode-test/code-server}
marker="$CODE_SERVER_HOME/.coroscope-installed"
package_dir="$CODE_SERVER_HOME/node_modules/code-server"
vscode_dir="$package_dir/lib/vscode"

log() { printf '[install-code-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- Node: code-server 4.100.x runs only on Node 20 (newer ones want 22 or 24). ----------
command -v node >/dev/null || die "node is not on PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = "$REQUIRED_NODE_MAJOR" ] || die "code-server $CODE_SERVER_VERSION needs Node $REQUIRED_NODE_MAJOR, found $(node --version)"
node_abi=$(node -p 'process.versions.modules')
marker_text="code-server=$CODE_SERVER_VERSION recipe=$RECIPE_REVISION node-abi=$node_abi"

# --- apt: only when something is missing (apt-get update first on a fresh machine). -----
apt_missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || apt_missing+=("$pkg")
done
if [ "${#apt_missing[@]}" -gt 0 ]; then
  if [ "${SKIP_APT:-0}" = 1 ]; then
    die "missing Debian packages (SKIP_APT=1): ${apt_missing[*]}"
  fi
  [ "$(id -u)" = 0 ] || die "missing Debian packages ${apt_missing[*]}: run as root or install them first"
  log "apt-get install ${apt_missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
fi
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium is missing after apt"
[ -x /usr/bin/rg ] || die "/usr/bin/rg is missing after apt"

# --- One install at a time (two test runs may call this together). ----------------------
mkdir -p "$CODE_SERVER_HOME"
if command -v flock >/dev/null; then
  exec 9>"$CODE_SERVER_HOME/.install.lock"
  flock 9
fi

verify_native_modules() {
  (cd "$vscode_dir" && node -e '
    const failed = [];
    for (const name of process.argv.slice(1)) {
      try { require(name); } catch (error) { failed.push(name + ": " + error.message); }
    }
    if (failed.length > 0) { console.error(failed.join("\n")); process.exit(1); }
  ' "${VSCODE_NATIVE_MODULES[@]}") &&
  (cd "$CODE_SERVER_HOME" && node -e '
    const argon2 = require("argon2");
    argon2.hash("probe").then((h) => argon2.verify(h, "probe")).then((ok) => process.exit(ok ? 0 : 1),
      (error) => { console.error("argon2: " + error.message); process.exit(1); });
  ') &&
  "$vscode_dir/node_modules/@vscode/ripgrep/bin/rg" --version >/dev/null
}

if [ "${FORCE_REINSTALL:-0}" != 1 ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$marker_text" ] \
   && [ -L "$vscode_dir/node_modules.asar" ] && verify_native_modules; then
  log "code-server $CODE_SERVER_VERSION already installed in $CODE_SERVER_HOME ($(( $(date +%s) - started_at ))s)"
  exit 0
fi
rm -f "$marker"

# --- npm settings for an offline native build. --------------------------------------------
# node-gyp would download Node's headers from nodejs.org; point it at the local ones.
if [ -z "${npm_config_nodedir:-}" ]; then
  node_prefix=$(dirname "$(dirname "$(command -v node)")")
  if [ -f "$node_prefix/include/node/node_version.h" ]; then
    export npm_config_nodedir="$node_prefix"
  fi
fi
export JOBS=max                  # node-gyp: make -j<cores>
export npm_config_yes=true       # no prompt from any npx inside a script
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
NPM_FLAGS=(--ignore-scripts --loglevel=error)

# --- 1. code-server itself, without its postinstall (which downloads ripgrep). ----------
log "npm install code-server@$CODE_SERVER_VERSION into $CODE_SERVER_HOME"
if [ ! -f "$CODE_SERVER_HOME/package.json" ]; then
  printf '{\n  "name": "coroscope-e2e-code-server",\n  "private": true\n}\n' > "$CODE_SERVER_HOME/package.json"
fi
(cd "$CODE_SERVER_HOME" && npm install "code-server@$CODE_SERVER_VERSION" --save-exact "${NPM_FLAGS[@]}")
[ -f "$package_dir/out/node/entry.js" ] || die "code-server's entry.js is missing after npm install"

# --- 2. What code-server's postinstall.sh does, step by step, offline. -------------------
log "npm install VS Code's server dependencies (lib/vscode)"
(cd "$vscode_dir" && npm install --omit=dev "${NPM_FLAGS[@]}")

log "ripgrep from Debian into @vscode/ripgrep/bin"
mkdir -p "$vscode_dir/node_modules/@vscode/ripgrep/bin"
cp -f /usr/bin/rg "$vscode_dir/node_modules/@vscode/ripgrep/bin/rg"

# npm 11 keeps running dependencies' install scripts on `npm rebuild` (with an
# "allowScripts" warning), but names are given explicitly and the result is checked below,
# so that a stricter npm cannot silently leave an addon unbuilt.
log "npm rebuild ${VSCODE_GYP_ADDONS[*]} (node-gyp, from source)"
(cd "$vscode_dir" && npm rebuild "${VSCODE_GYP_ADDONS[@]}" --foreground-scripts --loglevel=error >/dev/null)
log "npm rebuild kerberos (build from source, no prebuilt download)"
(cd "$vscode_dir" && npm_config_build_from_source=true npm rebuild kerberos --foreground-scripts --loglevel=error >/dev/null)

# VS Code looks for unpacked asar content (ripgrep, wasm files) under node_modules.asar.
ln -sfn node_modules "$vscode_dir/node_modules.asar"
# The `code-server` CLI inside the integrated terminal and the browser helper.
ln -sfn code-linux.sh "$vscode_dir/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$vscode_dir/bin/helpers/browser.sh"

log "npm install built-in extensions' shared dependencies (lib/vscode/extensions)"
(cd "$vscode_dir/extensions" && npm install --omit=dev "${NPM_FLAGS[@]}")

# --- 3. argon2 (password hashing in code-server's own server; loaded at start). ---------
log "npm rebuild argon2 (build from source, no prebuilt download)"
(cd "$CODE_SERVER_HOME" && npm_config_build_from_source=true npm rebuild argon2 --foreground-scripts --loglevel=error >/dev/null)

# --- 4. Check, then mark as done. ---------------------------------------------------------
# Fallback if a stricter npm skipped the scripts: build whatever did not load with node-gyp.
if ! verify_native_modules 2>/dev/null; then
  log "some native module did not load after npm rebuild; building with node-gyp directly"
  node_gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
  for addon in "${VSCODE_GYP_ADDONS[@]}" kerberos; do
    (cd "$vscode_dir/node_modules/$addon" && node "$node_gyp" rebuild >/dev/null)
  done
  (cd "$CODE_SERVER_HOME/node_modules/argon2" && node ../@mapbox/node-pre-gyp/bin/node-pre-gyp rebuild --build-from-source >/dev/null)
fi
verify_native_modules || die "native modules do not load (see above)"
# (Not `entry.js --version`: that writes a default ~/.config/code-server/config.yaml.)
installed_version=$(node -p 'require(process.argv[1]).version' "$package_dir/package.json")
[ "$installed_version" = "$CODE_SERVER_VERSION" ] || die "installed code-server is $installed_version, expected $CODE_SERVER_VERSION"

printf '%s\n' "$marker_text" > "$marker"
log "code-server $installed_version installed in $CODE_SERVER_HOME ($(( $(date +%s) - started_at ))s)"
