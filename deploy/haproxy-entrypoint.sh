#!/bin/sh
# Renders the template and runs haproxy in the foreground; with --check, renders it and has haproxy
# check the result, then exits (its status is haproxy's).
#   HAPROXY_BIND      the listening address:port (default 0.0.0.0:6443)
#   APISERVERS        space-separated host:port of the replicas (default the three of docker-compose.yml)
#   HAPROXY_TEMPLATE  the template (default /etc/haproxy/haproxy.cfg.template)
#   HAPROXY_CONFIG    where the rendered configuration goes (default /tmp/haproxy.cfg)
set -eu
bind="${HAPROXY_BIND:-0.0.0.0:6443}"
servers="${APISERVERS:-apiserver-1:6443 apiserver-2:6443 apiserver-3:6443}"
template="${HAPROXY_TEMPLATE:-/etc/haproxy/haproxy.cfg.template}"
config="${HAPROXY_CONFIG:-/tmp/haproxy.cfg}"
awk -v bind="$bind" -v servers="$servers" '
  index($0, "${SERVERS}") {
    n = split(servers, list, " ")
    for (i = 1; i <= n; i++) {
      name = list[i]; sub(/:.*/, "", name)
      # init-addr last,libc,none: start even while a replica cannot be resolved yet.
      printf "    server %s %s check check-ssl verify none inter 1s fall 2 rise 2 resolvers resolvconf init-addr last,libc,none\n", name, list[i]
    }
    next
  }
  { gsub(/\$\{BIND\}/, bind); print }
  END {
    # The container'"'"'s own nameservers (Docker'"'"'s embedded DNS, podman'"'"'s aardvark on the network'"'"'s
    # gateway, a cluster'"'"'s DNS): replicas that restart come back under a new address.
    print ""
    print "resolvers resolvconf"
    print "    parse-resolv-conf"
    print "    hold valid 5s"
    # A resolver that stops answering must not take a replica out: past 30 s of timeouts (the
    # default) haproxy puts every server into maintenance, and aardvark-dns 1.4 has gone silent
    # that long. The health checks decide whether a replica at its last address is up.
    print "    hold timeout 1h"
  }
' "$template" > "$config"
if [ "${1:-}" = --check ]; then exec haproxy -c -f "$config"; fi
haproxy -c -q -f "$config"
exec haproxy -db -f "$config"
