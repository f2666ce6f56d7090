#!/bin/sh
# Makes, once, what every replica and controller-manager of a docker-compose cluster shares in
# CERT_DIR (default /certs): one CA and one serving certificate for all replicas (names: the load
# balancer, each replica, localhost, 127.0.0.1), the token file (admin, group system:masters, its
# token from PLAT_ADMIN_TOKEN), and two kubeconfigs: kubeconfig (https://haproxy:6443, inside the
# compose network) and kubeconfig-host (https://127.0.0.1:${HOST_PORT:-6443}, from the host).
set -eu
dir="${CERT_DIR:-/certs}"
names="${SERVING_NAMES:-haproxy apiserver-1 apiserver-2 apiserver-3 localhost}"
: "${PLAT_ADMIN_TOKEN:?set PLAT_ADMIN_TOKEN}"
mkdir -p "$dir"
cd "$dir"
if [ ! -f apiserver.crt ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
    -days 3650 -subj "/CN=plat-ca"
  san="IP:127.0.0.1"
  for name in $names; do san="$san,DNS:$name"; done
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' "$san" > serving.ext
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=plat-apiserver"
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 365 -extfile serving.ext
  rm -f apiserver.csr serving.ext ca.srl
  chmod 0644 ca.crt apiserver.crt
  chmod 0640 apiserver.key ca.key
fi
printf '%s,admin,admin-uid,"system:masters"\n' "$PLAT_ADMIN_TOKEN" > tokens.csv
printf "%s" "$PLAT_ADMIN_TOKEN" > admin-token
chmod 0640 tokens.csv admin-token
ca_data="$(base64 -w0 < ca.crt)"
for target in "kubeconfig https://haproxy:6443" "kubeconfig-host https://127.0.0.1:${HOST_PORT:-6443}"; do
  set -- $target
  cat > "$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: plat
  cluster:
    server: $2
    certificate-authority-data: $ca_data
users:
- name: admin
  user:
    token: $PLAT_ADMIN_TOKEN
contexts:
- name: plat
  context:
    cluster: plat
    user: admin
current-context: plat
KUBECONFIG
  chmod 0640 "$1"
done
echo "certificates, token file and kubeconfigs are in $dir"
