#!/usr/bin/env bash
# Makes a throw-away test CA and a server certificate for the HTTPS reference scenarios, at run time
# (no private key is ever committed). TEST ONLY: the keys are unprotected and live in DIR.
#
#   make-test-ca.sh DIR [--big N]
#
# Writes DIR/ca.pem, DIR/server.pem (leaf + CA: the chain the server sends), DIR/server.key.
# The server name is refsvc.stallscope.test (the reference client sends it as SNI and checks it; it
# connects by address, so no IP SANs). Keys are EC P-256, so a normal flight is small. --big N adds N extra DNS names to the leaf so
# the certificate flight outgrows a 10-segment initial congestion window (~14.5 KB at MTU 1500).
set -euo pipefail
dir="${1:?usage: make-test-ca.sh DIR [--big N]}"; shift
big=0
[ "${1:-}" = "--big" ] && big="${2:?--big needs a count}"
mkdir -p "$dir"
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
  -subj "/CN=StallScope test CA (test only)" -keyout ca.key -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
{
  echo "subjectAltName=@alt"
  echo "basicConstraints=CA:FALSE"
  echo "extendedKeyUsage=serverAuth"
  echo "[alt]"
  echo "DNS.1=refsvc.stallscope.test"
  for i in $(seq 1 "$big"); do echo "DNS.$((i + 1))=host$i.padding-to-grow-the-certificate-flight.stallscope.test"; done
} >leaf.ext
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=refsvc.stallscope.test" \
  -keyout server.key -out server.csr 2>/dev/null
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -extfile leaf.ext \
  -out leaf.pem 2>/dev/null
cat leaf.pem ca.pem >server.pem
rm -f server.csr leaf.ext ca.srl
