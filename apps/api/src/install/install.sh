#!/bin/sh
# llmgw: joins this machine to the llmgw server at @SERVER@ as a node.
# Where that address comes from: @SERVER_FROM@.
#
#   curl -fsSL @SERVER@/install.sh | sh -s -- --token T [--name N] [--prefix DIR] [--no-service]
#
# It checks for Node.js >= 20, downloads the server's agent (agent.mjs @VERSION@: one file, nothing
# else to install) and, as root on a machine run by systemd, installs and starts the service
# llmgw-agent with the server, token and name in /etc/llmgw/agent.env (root only). Otherwise it
# prints the command that runs the agent. Run it again to upgrade: it downloads only when the
# server's agent differs from the one in place.
# Written by the server for this request: POSIX sh, checked with `sh -n` and run by dash in tests.
set -eu

SERVER='@SERVER@'
VERSION='@VERSION@'
SHA256='@SHA256@'
TOKENS_REQUIRED='@TOKENS_REQUIRED@'

say() { printf 'llmgw: %s\n' "$*"; }
fail() {
  printf 'llmgw: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
usage: curl -fsSL $SERVER/install.sh | sh -s -- [--token T] [--name N] [--prefix DIR] [--no-service]

  --token T      the node's agent token (or LLMGW_TOKEN); an admin makes one with
                   llmgw ctl token create --name N --role agent --node N
  --name N       the node's name (default: this machine's host name)
  --prefix DIR   where agent.mjs goes (default /opt/llmgw as root, else ~/.local/share/llmgw)
  --no-service   download the agent and print the command that runs it; install no service
  --root DIR     write the service's files under DIR instead of /, and start nothing (for images
                 and tests)
EOF
}

# A word as the shell reads it back: bare when it is plain, else in single quotes.
word() {
  case $1 in
    '' | *[!A-Za-z0-9._/:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
  esac
}

token=${LLMGW_TOKEN:-}
name=
prefix=
service=yes
root=
while [ $# -gt 0 ]; do
  case $1 in
    --token | --name | --prefix | --root)
      [ $# -ge 2 ] || fail "$1 needs a value"
      case $1 in
        --token) token=$2 ;;
        --name) name=$2 ;;
        --prefix) prefix=$2 ;;
        --root) root=$2 ;;
      esac
      shift 2
      ;;
    --token=*) token=${1#*=} && shift ;;
    --name=*) name=${1#*=} && shift ;;
    --prefix=*) prefix=${1#*=} && shift ;;
    --root=*) root=${1#*=} && shift ;;
    --no-service) service=no && shift ;;
    -h | --help) usage && exit 0 ;;
    # Only up to an "=": what follows may be a secret.
    -*) usage >&2 && fail "unknown option ${1%%=*}" ;;
    *) usage >&2 && fail "unexpected argument (not shown: it may be a secret); options start with --" ;;
  esac
done

case $token in
  *[!A-Za-z0-9._~+/=:@%,-]*) fail "--token: that is not an llmgw token (letters, digits and ._~+/=:@%,- only)" ;;
esac
case $name in
  *[!A-Za-z0-9._:-]*) fail "--name: a node's name is 1 to 64 letters, digits and . _ : - ($(word "$name") is not)" ;;
esac
[ ${#name} -le 64 ] || fail "--name: a node's name is at most 64 characters"
case $root in
  '' | /*) root=${root%/} ;;
  *) fail "--root wants an absolute path" ;;
esac

# As root (or writing a system's files under --root), system places; else the user's own.
as_root=no
if [ -n "$root" ] || [ "$(id -u)" = 0 ]; then as_root=yes; fi
if [ -z "$prefix" ]; then
  if [ $as_root = yes ]; then
    prefix=/opt/llmgw
  else
    [ -n "${HOME:-}" ] || fail "HOME is not set: say where agent.mjs goes with --prefix DIR"
    prefix=$HOME/.local/share/llmgw
  fi
fi
case $prefix in
  /*) ;;
  *) prefix=$(pwd)/$prefix ;;
esac
prefix=${prefix%/}
dir=$root$prefix

node=$(command -v node 2>/dev/null || true)
[ -n "$node" ] || fail "Node.js is not installed (no node on PATH), and the agent needs Node.js 20 or newer. Install it (https://nodejs.org/en/download, or your distribution's nodejs package if it is 20 or newer), then run this again."
node_version=$("$node" --version 2>/dev/null || true)
major=${node_version#v}
major=${major%%.*}
case $major in
  '' | *[!0-9]*) fail "$node does not say its version, and the agent needs Node.js 20 or newer" ;;
esac
[ "$major" -ge 20 ] || fail "Node.js $node_version ($node) is too old: the agent needs Node.js 20 or newer. Install it (https://nodejs.org/en/download), then run this again."

if command -v curl >/dev/null 2>&1; then
  fetcher=curl
elif command -v wget >/dev/null 2>&1; then
  fetcher=wget
else
  fail "neither curl nor wget is installed, and one is needed to download the agent: install curl (apt-get install curl, dnf install curl, apk add curl), then run this again"
fi

# The hex SHA-256 of a file, by Node (which is here by now); empty when it cannot be read.
sha256_of() {
  "$node" -e 'try{process.stdout.write(require("crypto").createHash("sha256").update(require("fs").readFileSync(process.argv[1])).digest("hex"))}catch{}' "$1"
}

# Downloads $1 into the file $2, or stops saying why: the server unreachable, or its HTTP error.
download() {
  set +e
  if [ $fetcher = curl ]; then
    answer=$(curl -sS -L --connect-timeout 10 -o "$2" -w '%{http_code}' "$1" 2>&1)
    rc=$?
    status=${answer#"${answer%???}"}
    answer=${answer%???}
  else
    answer=$(wget -S -q -T 10 -O "$2" "$1" 2>&1)
    rc=$?
    status=$(printf '%s\n' "$answer" | sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*/\1/p' | tail -n 1)
    # Quiet, wget says nothing of a failure but its exit status.
    case $rc in
      0) answer= ;;
      3) answer="wget: cannot write $2" ;;
      4) answer="wget: network failure" ;;
      5) answer="wget: the TLS certificate does not verify" ;;
      *) answer="wget: exit status $rc" ;;
    esac
  fi
  set -e
  answer=$(printf '%s' "$answer" | tr '\n' ' ' | sed 's/ *$//')
  case $status in
    200) [ $rc = 0 ] || fail "downloading $1 failed ($answer)" ;;
    '' | 000) fail "cannot reach the llmgw server at $SERVER ($answer): is it running, and can this machine reach it?" ;;
    *)
      why=$(sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$2" 2>/dev/null | head -n 1)
      fail "the llmgw server answered HTTP $status for $1${why:+: $why}"
      ;;
  esac
}

installed=$dir/agent.mjs
if [ -f "$installed" ] && [ "$(sha256_of "$installed")" = "$SHA256" ]; then
  fresh=no
  say "agent.mjs $VERSION is already in $dir: nothing to download"
else
  problem=$(mkdir -p "$dir" 2>&1) || fail "cannot create $dir ($problem): choose another place with --prefix DIR"
  # Downloaded beside its place, then renamed into it: never a half-written agent.mjs.
  partial=$dir/.agent-$$.mjs
  trap 'rm -f "$partial"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  (: >"$partial") 2>/dev/null || fail "cannot write in $dir: choose another place with --prefix DIR"
  say "downloading agent.mjs $VERSION from $SERVER"
  download "$SERVER/install/agent.mjs" "$partial"
  [ "$(sha256_of "$partial")" = "$SHA256" ] ||
    fail "the agent.mjs downloaded is not the one this script names (the server's agent changed since it wrote the script?): run the line again"
  ran=$("$node" "$partial" --version 2>&1) || fail "agent.mjs does not run on $node ($node_version): $ran"
  chmod 644 "$partial"
  mv -f "$partial" "$installed"
  fresh=yes
  say "agent.mjs $VERSION is in $dir"
fi

# Writes what stdin holds to $1 when it differs from what is there (mode $2); says whether it did.
changed=no
put() {
  cat >"$1.new"
  chmod "$2" "$1.new"
  if [ -f "$1" ] && [ "$(cat "$1")" = "$(cat "$1.new")" ]; then
    rm -f "$1.new"
  else
    mv -f "$1.new" "$1"
    changed=yes
  fi
}

if [ $service = yes ] && [ $as_root = yes ] && [ -d "$root/run/systemd/system" ]; then
  env_file=$root/etc/llmgw/agent.env
  unit_file=$root/etc/systemd/system/llmgw-agent.service
  # An upgrade (the line run again, maybe without --token) keeps the node's token and name.
  if [ -f "$env_file" ]; then
    [ -n "$token" ] || token=$(sed -n 's/^LLMGW_TOKEN=//p' "$env_file")
    [ -n "$name" ] || name=$(sed -n 's/^LLMGW_NAME=//p' "$env_file")
  fi
  if [ -z "$token" ] && [ "$TOKENS_REQUIRED" = yes ]; then
    fail "this server asks for tokens: give the node's agent token with --token T (an admin makes one with: llmgw ctl token create --name N --role agent --node N)"
  fi
  case $node$prefix in
    *[!A-Za-z0-9._/@+-]*) fail "the service cannot name $node or $prefix (spaces, quotes or % in a path): choose another --prefix DIR" ;;
  esac
  mkdir -p "$root/etc/llmgw" "$root/etc/systemd/system"
  chmod 700 "$root/etc/llmgw"
  settings="# llmgw-agent.service reads this; root only: it holds the node's agent token.
LLMGW_SERVER=$SERVER"
  [ -z "$name" ] || settings="$settings
LLMGW_NAME=$name"
  [ -z "$token" ] || settings="$settings
LLMGW_TOKEN=$token"
  # Created unreadable to others from its first byte: it holds the token.
  old_umask=$(umask)
  umask 077
  put "$env_file" 600 <<EOF
$settings
EOF
  umask "$old_umask"
  put "$unit_file" 644 <<EOF
[Unit]
Description=llmgw agent: reports this machine to $SERVER and runs the replicas placed on it
Documentation=$SERVER/install.sh
Wants=network-online.target
After=network-online.target

[Service]
EnvironmentFile=/etc/llmgw/agent.env
ExecStart=$node $prefix/agent.mjs --cache-dir /var/cache/llmgw/weights
CacheDirectory=llmgw
Restart=always
RestartSec=5
# SIGTERM to the agent alone: it stops its engines itself, then exits.
KillMode=mixed
TimeoutStopSec=60

[Install]
WantedBy=multi-user.target
EOF
  if [ -n "$root" ]; then
    # Enabled offline (systemctl --root only links files), never started: that system is not this one.
    if command -v systemctl >/dev/null 2>&1; then
      systemctl --root="$root" enable --quiet llmgw-agent.service
      say "wrote and enabled $unit_file, and wrote $env_file (root only); with --root nothing is started"
    else
      say "wrote $unit_file and $env_file (root only); with --root nothing is started: on that system, systemctl enable --now llmgw-agent"
    fi
    exit 0
  fi
  command -v systemctl >/dev/null 2>&1 || fail "systemd runs this machine but systemctl is not on PATH"
  systemctl daemon-reload
  systemctl enable --quiet llmgw-agent.service
  if [ $fresh = yes ] || [ $changed = yes ]; then
    systemctl restart llmgw-agent.service
  else
    systemctl start llmgw-agent.service
  fi
  say "llmgw-agent.service runs agent.mjs $VERSION, and starts with the machine; follow it with: journalctl -u llmgw-agent -f"
  exit 0
fi

if [ $service = yes ]; then
  if [ $as_root = yes ]; then
    say "no systemd here, so no service is installed: run the agent under this machine's own supervisor"
  else
    say "not root, so no service is installed (run the line as root for one)"
  fi
fi
command="$(word "$node") $(word "$prefix/agent.mjs") --server $(word "$SERVER")"
[ -z "$name" ] || command="$command --name $(word "$name")"
if [ -n "$token" ] || [ "$TOKENS_REQUIRED" = yes ]; then
  say "start the agent with the node's agent token (the one you passed is not shown):"
  printf "  LLMGW_TOKEN='<agent token>' %s\n" "$command"
else
  say "start the agent with:"
  printf '  %s\n' "$command"
fi
