#!/bin/sh
# Makes what the replicas and controller-managers of a docker-compose cluster share, as `make
# cluster` (scripts/cluster-up.mjs) does. In CERT_DIR (default /certs), for the apiservers and the
# admin:
#   ca.crt, ca.key, apiserver.crt, apiserver.key   one CA and one serving certificate for every
#                                                  replica (names: the load balancer, each replica,
#                                                  localhost, 127.0.0.1); made once
#   service-account.key, service-account.pub       the service-account token signing key (EC P-256)
#                                                  and its public half, for every replica
#                                                  (--service-account-signing-key-file,
#                                                  --service-account-key-file); made once
#   tokens.csv                                     --token-auth-file: the admin (group
#                                                  system:masters, token PLAT_ADMIN_TOKEN) and the
#                                                  controller-manager's own user (no groups)
#   admin-token, kubeconfig, kubeconfig-host       the admin's token and kubeconfigs: kubeconfig at
#                                                  https://haproxy:6443 (inside the compose network),
#                                                  kubeconfig-host at https://127.0.0.1:${HOST_PORT:-6443}
#   etcd-client/ca.crt, client.crt, client.key     the apiservers' side of TLS to etcd: the etcd CA
#                                                  (--etcd-cafile) and their client certificate
#                                                  (--etcd-certfile, --etcd-keyfile)
# In ETCD_CERT_DIR (default CERT_DIR/etcd), for the etcd members, made once by deploy/etcd-certs.sh:
#   ca.crt, ca.key, server.crt, server.key         the etcd CA and the members' certificate (names:
#                                                  ETCD_NAMES, default etcd-1 etcd-2 etcd-3), for
#                                                  clients and peers alike
#   client.crt, client.key                         the client certificate copied to etcd-client/
# In CONTROLLER_MANAGER_DIR (default CERT_DIR), for the controller-managers only:
#   controller-manager-token                       their bearer token: random, made once
#   controller-manager.kubeconfig                  https://haproxy:6443 with that token
# The controller-managers' user is system:<prefix>-controller-manager, the prefix from API_DOMAIN
# (default plat.io) as the apiserver derives it: "kube" for k8s.io, else the domain's first label.
# The apiserver's bootstrap policy lets that user elect a leader, watch, and create the controllers'
# service accounts and their tokens (--use-service-account-credentials): no system:masters.
set -eu
dir="${CERT_DIR:-/certs}"
manager_dir="${CONTROLLER_MANAGER_DIR:-$dir}"
etcd_dir="${ETCD_CERT_DIR:-$dir/etcd}"
etcd_names="${ETCD_NAMES:-etcd-1 etcd-2 etcd-3}"
# Beside this script in the repository; on the PATH in the image.
etcd_certs="$(cd "$(dirname "$0")" && pwd)/etcd-certs.sh"
[ -f "$etcd_certs" ] || etcd_certs="$(command -v plat-etcd-certs)"
names="${SERVING_NAMES:-haproxy apiserver-1 apiserver-2 apiserver-3 localhost}"
domain="${API_DOMAIN:-plat.io}"
: "${PLAT_ADMIN_TOKEN:?set PLAT_ADMIN_TOKEN}"
if [ "$domain" = k8s.io ]; then prefix=kube; else prefix="${domain%%.*}"; fi
manager_user="system:${prefix}-controller-manager"
mkdir -p "$dir" "$manager_dir"
manager_dir="$(cd "$manager_dir" && pwd)"
mkdir -p "$etcd_dir"
etcd_dir="$(cd "$etcd_dir" && pwd)"
cd "$dir"
umask 027
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
# TLS to etcd: the members' certificates (made once), and the apiservers' copy of the CA and of
# their client certificate.
# shellcheck disable=SC2086 # the names are words
sh "$etcd_certs" "$etcd_dir" $etcd_names
mkdir -p etcd-client
cp "$etcd_dir/ca.crt" "$etcd_dir/client.crt" "$etcd_dir/client.key" etcd-client/
chmod 0644 etcd-client/ca.crt etcd-client/client.crt
chmod 0640 etcd-client/client.key
# One signing key for every replica: a token one replica issues, all accept.
if [ ! -f service-account.key ] || [ ! -f service-account.pub ]; then
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out service-account.key
  openssl pkey -in service-account.key -pubout -out service-account.pub
  chmod 0640 service-account.key
  chmod 0644 service-account.pub
fi
# The controller-managers' token: made once, kept across runs (the admin's comes from the environment).
if [ ! -s "$manager_dir/controller-manager-token" ]; then
  openssl rand -hex 24 > "$manager_dir/controller-manager-token"
  chmod 0640 "$manager_dir/controller-manager-token"
fi
manager_token="$(cat "$manager_dir/controller-manager-token")"
if [ "$manager_token" = "$PLAT_ADMIN_TOKEN" ]; then
  echo "PLAT_ADMIN_TOKEN must differ from the controller-manager's token" >&2
  exit 1
fi
# token,user,uid[,"groups"]: only the admin is in system:masters.
{
  printf '%s,admin,admin-uid,"system:masters"\n' "$PLAT_ADMIN_TOKEN"
  printf '%s,%s,controller-manager-uid\n' "$manager_token" "$manager_user"
} > tokens.csv
printf "%s" "$PLAT_ADMIN_TOKEN" > admin-token
chmod 0640 tokens.csv admin-token
ca_data="$(base64 -w0 < ca.crt)"

# kubeconfig FILE SERVER USER TOKEN
kubeconfig() {
  cat > "$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: plat
  cluster:
    server: $2
    certificate-authority-data: $ca_data
users:
- name: $3
  user:
    token: $4
contexts:
- name: plat
  context:
    cluster: plat
    user: $3
current-context: plat
KUBECONFIG
  chmod 0640 "$1"
}
kubeconfig kubeconfig https://haproxy:6443 admin "$PLAT_ADMIN_TOKEN"
kubeconfig kubeconfig-host "https://127.0.0.1:${HOST_PORT:-6443}" admin "$PLAT_ADMIN_TOKEN"
kubeconfig "$manager_dir/controller-manager.kubeconfig" https://haproxy:6443 controller-manager "$manager_token"
echo "certificates, signing key, token file and the admin's kubeconfigs are in $dir;"
echo "the controller-managers' token and kubeconfig ($manager_user) are in $manager_dir"
