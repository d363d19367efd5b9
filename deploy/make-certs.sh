#!/usr/bin/env bash
# A CA and the certificates auth and social serve, for deploy/compose.yaml (names: the compose service names and
# localhost). Usage: deploy/make-certs.sh [dir] (default deploy/certs). Production: certificates from your own CA.
set -euo pipefail
dir="${1:-$(dirname "$0")/certs}"
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 825 -subj "/CN=Game platform compose CA" \
  -keyout ca-key.pem -out ca.pem 2>/dev/null
for svc in auth social; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$svc" -keyout "$svc-key.pem" -out "$svc.csr" 2>/dev/null
  openssl x509 -req -in "$svc.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 825 -out "$svc.pem" \
    -extfile <(printf 'subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' "$svc") 2>/dev/null
  rm "$svc.csr"
done
chmod 0644 ./*.pem
echo "certificates in $dir: ca.pem, auth.pem, auth-key.pem, social.pem, social-key.pem"
