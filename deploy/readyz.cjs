#!/usr/bin/env node
// docker-compose.yml's health check of an apiserver (plat-readyz in the image): exits 0 when the
// apiserver in this container answers /readyz with 200, 1 otherwise. A file rather than a
// `node -e` one-liner in the compose file: podman-compose re-quotes a CMD array's arguments into
// a shell string, which a script full of quotes and parentheses does not survive.
//   plat-readyz [port]   the secure port, 6443 by default
const { get } = require('node:https');

const port = Number(process.argv[2] ?? 6443);
// Loopback inside the container: what is checked is the answer, not the certificate.
get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, timeout: 2000 }, (response) => {
  response.resume();
  process.exit(response.statusCode === 200 ? 0 : 1);
})
  .on('timeout', () => process.exit(1))
  .on('error', () => process.exit(1));
