#!/bin/sh
# The certificates of a TLS etcd cluster and of its clients, made once (kept when present):
#
#   deploy/etcd-certs.sh DIR [NAME...]
#
#   DIR/ca.crt, ca.key          the etcd CA (EC P-256, ten years)
#   DIR/server.crt, server.key  every member's certificate, for its clients and its peers alike
#                               (serverAuth and clientAuth; names: 127.0.0.1, ::1, localhost and
#                               each NAME, e.g. the members' host names in docker-compose.yml)
#   DIR/client.crt, client.key  the apiservers' client certificate (CN plat-apiserver, clientAuth):
#                               --etcd-certfile, --etcd-keyfile; ca.crt is --etcd-cafile
#
# Used by `make cluster` (scripts/cluster-up.mjs), docker-compose.yml (deploy/init-certs.sh) and
# the end-to-end tests of a TLS etcd cluster. Keys are readable by their owner and group only.
set -eu
dir="${1:?usage: etcd-certs.sh DIR [NAME...]}"
shift
mkdir -p "$dir"
cd "$dir"
umask 027
# The section of the leaves' extensions: EXT NAME EXTENDED_KEY_USAGE SUBJECT_ALT_NAMES
leaf() {
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n' "$3" > "$1.ext"
  if [ -n "$4" ]; then printf 'subjectAltName=%s\n' "$4" >> "$1.ext"; fi
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 825 -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext" ca.srl
  chmod 0640 "$1.key"
  chmod 0644 "$1.crt"
}
if [ ! -f ca.crt ] || [ ! -f ca.key ]; then
  rm -f server.crt client.crt
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 3650 \
    -subj "/CN=plat-etcd-ca" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  chmod 0640 ca.key
  chmod 0644 ca.crt
fi
if [ ! -f server.crt ] || [ ! -f server.key ]; then
  san="IP:127.0.0.1,IP:::1,DNS:localhost"
  for name in "$@"; do san="$san,DNS:$name"; done
  leaf server plat-etcd serverAuth,clientAuth "$san"
fi
if [ ! -f client.crt ] || [ ! -f client.key ]; then
  leaf client plat-apiserver clientAuth ""
fi
