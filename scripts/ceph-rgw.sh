#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with a RADOS Gateway (S3) on 127.0.0.1, for the tests of
# storage roots on S3. One monitor, one OSD on a sparse file, no ceph-mgr, auth none, pool size 1.
#
#   scripts/ceph-rgw.sh install          install the Debian packages when missing (root)
#   scripts/ceph-rgw.sh start DIR        start a cluster in DIR (created; must not hold one);
#                                        prints the S3 settings as KEY=value lines on stdout
#   scripts/ceph-rgw.sh stop DIR         stop the daemons of DIR and remove it
#
# Ports: MON_PORT and RGW_PORT from the environment, else random free ones below the ephemeral range.
set -euo pipefail

PACKAGES=(ceph-mon ceph-osd radosgw ceph-common)
ACCESS_KEY=siardocfltest
SECRET_KEY=siardocfltestsecret

log() { echo "ceph-rgw: $*" >&2; }

# Below the kernel's ephemeral range: a port picked inside it can become the source port of an
# outgoing connection (Ceph's own daemons make many) before the gateway binds it, seconds later
# (a CI run failed so: "failed to bind address 127.0.0.1:46178: Address already in use").
free_port() {
  local low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  local span=$((low > 21024 ? low - 20000 : 1024))
  for _ in $(seq 1 50); do
    local p=$((20000 + RANDOM % span))
    if ! (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  log "no free port found"; exit 1
}

install() {
  if command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null && command -v radosgw >/dev/null && command -v radosgw-admin >/dev/null; then return; fi
  log "installing ${PACKAGES[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # The package scripts say "Failed to connect to bus" where there is no systemd: harmless.
  apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null 2>&1
}

wait_for() { # seconds, description, command...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq 1 $((seconds * 4))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  log "timed out after ${seconds}s waiting for $what"; return 1
}

start() {
  local dir=$1
  if [ -e "$dir/ceph.conf" ]; then log "$dir already holds a cluster"; exit 1; fi
  for cmd in monmaptool ceph-mon ceph-osd radosgw radosgw-admin ceph; do
    command -v "$cmd" >/dev/null || { log "$cmd is not installed (run: $0 install)"; exit 3; }
  done
  mkdir -p "$dir"/{mon,osd/0,run,log,rgw}
  dir=$(cd "$dir" && pwd)
  local mon_port=${MON_PORT:-$(free_port)} rgw_port=${RGW_PORT:-$(free_port)}
  local fsid osd_uuid conf="$dir/ceph.conf"
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$mon_port
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_bind_msgr1 = false
ms_bind_ipv6 = false
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
mon_allow_pool_size_one = true
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
run_dir = $dir/run
pid_file = $dir/run/\$name.pid
admin_socket = $dir/run/\$name.asok
log_file = $dir/log/\$name.log
keyring = /dev/null
[mon]
mon_data = $dir/mon/\$id
[osd]
osd_data = $dir/osd/\$id
osd_objectstore = bluestore
bluestore_block_path = $dir/osd/\$id.block
bluestore_block_create = true
bluestore_block_size = 8589934592
osd_memory_target = 1073741824
[client.rgw.s3]
ms_mon_client_mode = crc
rgw_frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw_dns_name = localhost
rgw_data = $dir/rgw
EOF
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >/dev/null
  ceph-mon -c "$conf" -i a 2>>"$dir/log/start.err"
  wait_for 30 "the monitor" ceph -c "$conf" --connect-timeout 2 mon stat
  local id
  id=$(ceph -c "$conf" osd new "$osd_uuid")
  ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
  ceph-osd -c "$conf" -i "$id" 2>>"$dir/log/start.err"
  wait_for 60 "osd.$id to come up" bash -c "ceph -c '$conf' osd dump 2>/dev/null | grep -q '^osd.$id up'"
  radosgw -c "$conf" -n client.rgw.s3 2>>"$dir/log/start.err"
  wait_for 90 "the gateway on port $rgw_port" bash -c "exec 3<>/dev/tcp/127.0.0.1/$rgw_port"
  radosgw-admin -c "$conf" user create --uid siard-ocfl --display-name siard-ocfl --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" >/dev/null
  cat <<EOF
AWS_ENDPOINT_URL=http://127.0.0.1:$rgw_port
AWS_ACCESS_KEY_ID=$ACCESS_KEY
AWS_SECRET_ACCESS_KEY=$SECRET_KEY
AWS_REGION=us-east-1
AWS_S3_FORCE_PATH_STYLE=true
EOF
}

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  local pids=()
  for f in "$dir"/run/*.pid; do
    [ -f "$f" ] || continue
    local pid; pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null && pids+=("$pid") || true
  done
  for _ in $(seq 1 40); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.25
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}

case "${1:-}" in
  install) install ;;
  start) [ $# -eq 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }; start "$2" ;;
  stop) [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
  *) echo "usage: $0 install | start DIR | stop DIR" >&2; exit 2 ;;
esac
