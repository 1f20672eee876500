# Shared by the scripts: installs Debian packages whose commands are missing.
#
# install_missing SCRIPT CMD:PACKAGE ...   (a command counts as present on PATH or in /usr/games)
install_missing() {
  local script=$1; shift
  local need=() pair cmd pkg
  for pair in "$@"; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/games/$cmd" ] || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "$script: installing ${need[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}

# Installs PyPI packages whose module does not import (for the user; as root beside
# Debian's own, with --break-system-packages when pip refuses otherwise).
#
# pip_missing SCRIPT MODULE:PACKAGE ...
pip_missing() {
  local script=$1; shift
  local pair mod pkg
  if ! python3 -m pip --version >/dev/null 2>&1; then
    install_missing "$script" pip3:python3-pip
  fi
  for pair in "$@"; do
    mod=${pair%%:*}; pkg=${pair#*:}
    if ! python3 -c "import $mod" >/dev/null 2>&1; then
      echo "$script: installing $pkg (PyPI)" >&2
      python3 -m pip install --quiet "$pkg" 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages "$pkg"
    fi
  done
}

# The path of a command, looking in /usr/games first (where Debian puts polyglot, tkscid...).
tool() { if [ -x "/usr/games/$1" ]; then echo "/usr/games/$1"; else command -v "$1"; fi; }
