#!/usr/bin/env bash
# `make compose-check`: docker-compose.yml's topology run for real, then checked from the host
# through its load balancer. ENGINE=docker runs it on a Docker engine, with `docker compose` or
# docker-compose; ENGINE=podman (no Docker engine needed) with podman and podman-compose. Unset, it
# is docker where a Docker engine answers, else podman. Checked:
#   - the images build from deploy/Dockerfile, and every service starts;
#   - the health checks of the three etcd members, redis and the three apiservers pass;
#   - kubectl, with the kubeconfig the certs service wrote, is served through haproxy;
#   - a controller-manager leads and acts (a new namespace gets its default ServiceAccount);
#   - while one apiserver stops gracefully, and after another is killed, every request through the
#     load balancer is served; the killed one, started again under a new address, is found again
#     by haproxy through the network's DNS and taken back.
# It builds a clone of the committed HEAD, as a fresh checkout would, under project name
# $PROJECT (default platcheck), and removes its containers and volumes at the end. API_DOMAIN
# passes through to the compose file (k8s.io: Kubernetes' names, as kubectl expects them).
#
# Base images the registries cannot give (this machine reaches none) are replaced by stand-ins
# built from Debian's packages (deploy/stand-ins), labelled io.plat.stand-in=true: the
# Dockerfile, the compose file and our scripts are what is checked, not the upstream images.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROJECT=${PROJECT:-platcheck}
ENGINE=${ENGINE:-$(docker info >/dev/null 2>&1 && echo docker || echo podman)}
case $ENGINE in
  docker)
    engine=docker project_label=com.docker.compose.project separator=_
    if docker compose version >/dev/null 2>&1; then
      compose=(docker compose) separator=-
    else
      compose=(docker-compose)
    fi
    ;;
  podman)
    engine=podman project_label=io.podman.compose.project separator=_ compose=(podman-compose)
    export CONTAINERS_CONF="$ROOT/deploy/podman/containers.conf"
    ;;
  *) echo "compose-check: ENGINE is docker or podman, not $ENGINE" >&2 && exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/var/tmp}/plat-compose-check.XXXXXX")
started=$SECONDS

log() { echo "compose-check [$((SECONDS - started))s]: $*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}

# Removes the project's containers, volumes and network; after a failure, keeps each container's output
# and the build logs in $work for a look.
cleanup() {
  local status=$?
  if [ -d "$work/src" ]; then
    if [ $status -ne 0 ]; then
      mkdir -p "$work/logs"
      for name in $($engine ps -a --filter "label=$project_label=$PROJECT" --format '{{.Names}}'); do
        $engine logs "$name" >"$work/logs/$name.log" 2>&1 || true
      done
    fi
    remove_holders
    (cd "$work/src" && "${compose[@]}" -p "$PROJECT" down -v -t 5 >"$work/down.log" 2>&1) || log "${compose[*]} down failed: $(tail -3 "$work/down.log")"
    # podman-compose 1.0.3's down leaves the project's network behind.
    $engine network rm "${PROJECT}_default" >/dev/null 2>&1 || true
  fi
  if [ $status -ne 0 ]; then
    rm -rf "$work/src" "$work/rootfs"
    log "kept for a look: $work (logs/ holds each container's output)"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The containers that hold a stopped replica's address (below), removed at once: their `sleep`
# ignores SIGTERM.
remove_holders() {
  local names
  names=$($engine ps -a --filter "name=${PROJECT}_address-holder" --format '{{.Names}}' 2>/dev/null) || return 0
  [ -z "$names" ] && return 0
  if [ $engine = podman ]; then podman rm -f -t 0 $names; else docker rm -f $names; fi >/dev/null 2>&1 || true
}

needed=(kubectl openssl "${compose[0]}")
[ $engine = podman ] && needed+=(podman runc)
for command in "${needed[@]}"; do
  command -v "$command" >/dev/null || fail "$command is not installed (make compose-check installs it)"
done
log "engine: $engine, with ${compose[*]}"

# --- base images: present, pulled, or a stand-in ---------------------------------------------

# docker.io/library/<name> for Docker Hub's short names, as podman stores them.
qualified() {
  local image=$1 first=${1%%/*}
  if [[ $image != */* ]]; then echo "docker.io/library/$image"
  elif [[ $first != *.* && $first != *:* && $first != localhost ]]; then echo "docker.io/$image"
  else echo "$image"
  fi
}

build_debian() {
  local image=$1 suite=${1##*:}
  suite=${suite%-slim}
  command -v debootstrap >/dev/null || fail "debootstrap is needed for the $image stand-in"
  log "$image: stand-in from debootstrap ($suite, minbase)"
  debootstrap --variant=minbase "$suite" "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap $suite: see the end of its log: $(tail -3 "$work/debootstrap.log")"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" -c . | $engine import --change 'CMD ["bash"]' --change 'LABEL io.plat.stand-in=true' - "$image" >/dev/null 2>"$work/import.log" ||
    fail "$engine import of the $image stand-in: $(tail -3 "$work/import.log")"
  rm -rf "$work/rootfs"
}

build_stand_in() {
  local image=$1 kind=$2 context="$work/stand-in-$2"
  mkdir -p "$context"
  cp "$ROOT/deploy/stand-ins/$kind/Containerfile" "$context/"
  if [ "$kind" = node ]; then
    local wanted=${image##*:}
    wanted=${wanted%%-*}
    local have
    have=$(node -p 'process.versions.node.split(".")[0]')
    [ "$have" = "$wanted" ] || fail "$image: this machine's node is $have, not $wanted: no stand-in"
    cp "$(command -v node)" "$context/node"
    cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$context/npm"
    cp /etc/ssl/certs/ca-certificates.crt "$context/"
  fi
  log "$image: stand-in from deploy/stand-ins/$kind"
  $engine build -q --label io.plat.stand-in=true -f "$context/Containerfile" -t "$image" "$context" >"$work/stand-in-$kind.log" 2>&1 ||
    fail "$image: stand-in build failed: $(tail -5 "$work/stand-in-$kind.log")"
}

ensure_image() {
  local image
  image=$(qualified "$1")
  if $engine image inspect "$image" >/dev/null 2>&1; then
    local label
    label=$($engine image inspect --format '{{index .Config.Labels "io.plat.stand-in"}}' "$image")
    log "$image: present${label:+ (stand-in)}"
    return
  fi
  if timeout 300 $engine pull -q "$image" >/dev/null 2>&1; then
    log "$image: pulled"
    return
  fi
  case "$image" in
    docker.io/library/debian:*) build_debian "$image" ;;
    docker.io/library/node:*) build_stand_in "$image" node ;;
    */etcd:*) build_stand_in "$image" etcd ;;
    docker.io/library/redis:*) build_stand_in "$image" redis ;;
    *) fail "$image cannot be pulled, and there is no stand-in for it" ;;
  esac
}

# The FROM images of deploy/Dockerfile that are not its own stages, and the compose file's images
# that it does not build. Debian's first: the other stand-ins are built on it.
stages=$(sed -n 's/^FROM .* AS \([a-z0-9_-]*\)$/\1/p' "$ROOT/deploy/Dockerfile")
bases=$(sed -n 's/^FROM \([^ ]*\).*/\1/p' "$ROOT/deploy/Dockerfile" | grep -v -x -F "$stages")
bases+=$'\n'$(sed -n 's/^ *image: *\([^ ]*\)$/\1/p' "$ROOT/docker-compose.yml" | grep -v ':local$')
bases=$(sort -u <<<"$bases")
for image in $(grep 'debian:' <<<"$bases") $(grep -v 'debian:' <<<"$bases"); do
  ensure_image "$image"
done

# --- build and start -------------------------------------------------------------------------

# The compose file requires the token (down as well as up).
PLAT_PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
PLAT_ADMIN_TOKEN=$(openssl rand -hex 24)
export PLAT_PORT PLAT_ADMIN_TOKEN
git clone -q --no-hardlinks "$ROOT" "$work/src"
log "building $(git -C "$work/src" rev-parse --short HEAD) (the committed HEAD) with ${compose[*]}"
cd "$work/src"
"${compose[@]}" -p "$PROJECT" build >"$work/build.log" 2>&1 || fail "the images did not build: $(grep -i -m5 -E 'error|failed' "$work/build.log"); the whole log: $work/build.log"
log "images built"
"${compose[@]}" -p "$PROJECT" up -d >"$work/up.log" 2>&1 || fail "${compose[*]} up: $(tail -5 "$work/up.log")"
container() { echo "${PROJECT}${separator}$1${separator}1"; }

certs=$(timeout 120 $engine wait "$(container certs)") || fail "the certs service did not finish within 120 s"
[ "$certs" = 0 ] || fail "the certs service exited with $certs: $($engine logs "$(container certs)" 2>&1 | tail -5)"
$engine run --rm -v "${PROJECT}_certs:/certs:ro" --entrypoint cat plat:local /certs/kubeconfig-host >"$work/kubeconfig"
k() { kubectl --kubeconfig "$work/kubeconfig" --request-timeout=10s "$@"; }

# Within `deadline` seconds, `probe` (a command) succeeds; else fail saying `what`.
eventually() {
  local what=$1 deadline=$(($SECONDS + $2))
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "$what, within the time allowed"
    sleep 1
  done
}

# --- checks ----------------------------------------------------------------------------------

eventually "the load balancer serving /readyz" 120 k get --raw /readyz
log "ready through haproxy on 127.0.0.1:$PLAT_PORT"

# Docker runs the health checks itself; podman only when asked (without systemd there are no timers).
healthy() {
  if [ $engine = podman ]; then podman healthcheck run "$1"; else [ "$(docker inspect --format '{{.State.Health.Status}}' "$1")" = healthy ]; fi
}
for service in etcd-1 etcd-2 etcd-3 redis apiserver-1 apiserver-2 apiserver-3; do
  since=$SECONDS
  eventually "$service's health check" 60 healthy "$(container "$service")"
  [ $((SECONDS - since)) -lt 5 ] || log "$service's health check passed after $((SECONDS - since)) s"
done
log "health checks pass: etcd-1..3, redis, apiserver-1..3"

k create namespace compose-check >/dev/null
eventually "the default ServiceAccount of a new namespace (the controller-manager)" 60 k -n compose-check get serviceaccount default
# plat-system/plat-controller-manager; kube-system/kube-controller-manager with API_DOMAIN=k8s.io.
domain=${API_DOMAIN:-plat.io}
prefix=$([ "$domain" = k8s.io ] && echo kube || echo "${domain%%.*}")
holder=$(k -n "$prefix-system" get lease "$prefix-controller-manager" -o 'jsonpath={.spec.holderIdentity}')
[ -n "$holder" ] || fail "no controller-manager holds the lease"
log "controller-manager $holder leads; the new namespace got its default ServiceAccount"

# podman, without systemd, complains on stderr that it cannot remove health-check timers.
engine_log="$work/engine.log"

# A replica stopped gracefully (SIGTERM) fails /readyz for --shutdown-delay-duration while it still
# serves, so haproxy takes it out of the rotation first: no request through haproxy fails.
$engine stop -t 40 "$(container apiserver-3)" >/dev/null 2>>"$engine_log" &
stopping=$!
requests=0 failures=0
while kill -0 $stopping 2>/dev/null; do
  requests=$((requests + 1))
  k get namespace compose-check >/dev/null || failures=$((failures + 1))
done
wait $stopping || fail "$engine stop apiserver-3: $(tail -3 "$engine_log")"
code=$($engine inspect --format '{{.State.ExitCode}}' "$(container apiserver-3)")
[ "$code" = 0 ] || fail "apiserver-3 exited with $code on SIGTERM, not 0"
[ $failures = 0 ] || fail "$failures of $requests requests through haproxy failed while apiserver-3 stopped gracefully"
log "apiserver-3 stopped gracefully (exit 0): $requests requests through haproxy meanwhile, none failed"

address() { $engine inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
killed_address=$(address "$(container apiserver-2)")
$engine kill "$(container apiserver-2)" >/dev/null 2>>"$engine_log" || fail "$engine kill apiserver-2: $(tail -3 "$engine_log")"
# haproxy marks it down after two failed checks a second apart; meanwhile a refused connection is
# redispatched to another replica.
for i in $(seq 1 20); do
  k get namespace compose-check >/dev/null || fail "request $i after apiserver-2 was killed"
done
k -n compose-check create serviceaccount after-kill >/dev/null
k -n compose-check label serviceaccount after-kill replica=killed >/dev/null
[ "$(k -n compose-check get serviceaccount after-kill -o 'jsonpath={.metadata.labels.replica}')" = killed ] || fail "a write after the kill was not read back"
log "apiserver-2 killed: 20 reads, a create and a patch through haproxy served"

# apiserver-2 comes back under a new address (a container holds its old one meanwhile): haproxy
# finds it again through the network's DNS, and takes it back into the rotation.
$engine rm "$(container apiserver-2)" >/dev/null 2>>"$engine_log" || fail "$engine rm apiserver-2: $(tail -3 "$engine_log")"
hold() { $engine run -d --name "${PROJECT}_address-holder-$1" --network "${PROJECT}_default" "${@:2}" docker.io/library/debian:bookworm-slim sleep 600 >/dev/null; }
if [ $engine = podman ]; then
  hold 1 --ip "$killed_address"
else
  # Docker takes --ip only on a network whose subnet the user set, which the compose file does not.
  # It gives out the lowest free address (apiserver-3's, stopped above, may come first), so holders
  # are started until one has the old address.
  for i in $(seq 1 8); do
    hold "$i"
    [ "$(address "${PROJECT}_address-holder-$i")" != "$killed_address" ] || break
  done
fi
"${compose[@]}" -p "$PROJECT" up -d --no-deps apiserver-2 >"$work/up-again.log" 2>&1 || fail "apiserver-2 did not start again: $(tail -5 "$work/up-again.log")"
new_address=$(address "$(container apiserver-2)")
[ "$new_address" != "$killed_address" ] || fail "apiserver-2 came back under its old address $killed_address: nothing to re-resolve"
# haproxy logs the new address it resolved, then the server up again: by its health checks passing,
# or at once if a failed resolution (Docker's NXDOMAIN for a removed container, after `hold nx`) had
# put it into maintenance ("UP/READY (resolves again)"), its checks going on from there.
since_new_address() { $engine logs "$(container haproxy)" 2>&1 | sed -n "/apiserver-2 changed its IP from .* to $new_address/,\$p"; }
back_in_rotation() { since_new_address | grep -q -E "apiserver-2 is UP|apiserver-2 \('apiserver-2'\) is UP/READY"; }
eventually "haproxy taking apiserver-2 back at $new_address (it had $killed_address)" 60 back_in_rotation
# Two failed checks (fall 2, inter 1s) would take it out again: it must stay up.
sleep 3
down_again=$(since_new_address | grep -m1 'apiserver-2 is DOWN' || true)
[ -z "$down_again" ] || fail "haproxy took apiserver-2 out again at $new_address: $down_again"
remove_holders
log "apiserver-2 back at $new_address (was $killed_address): haproxy re-resolved it and took it back"

log "ok"
