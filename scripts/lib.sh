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

# The path of a command, looking in /usr/games first (where Debian puts polyglot, tkscid...).
tool() { if [ -x "/usr/games/$1" ]; then echo "/usr/games/$1"; else command -v "$1"; fi; }
