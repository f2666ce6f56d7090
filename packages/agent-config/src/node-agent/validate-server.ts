// Validation of the agent's servers: ports, TLS, authentication and authorization, and the handlers they serve.
import { forbidden, invalid, notSupported, type FieldError } from '@plat/apimachinery';
import { TLS13_CIPHER_SUITES, TLS_CIPHER_SUITES, TLS_VERSIONS } from '../tls-names.js';
import { inRange, path, requireGates, type ValidationContext } from './validate-helpers.js';

const AUTHORIZATION_MODES = ['AlwaysAllow', 'Webhook'];

export function validateServer({ config: c, gates }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  inRange(errors, path('port'), c.port, 1, 65535);
  // 0 turns these two servers off.
  if (c.readOnlyPort) inRange(errors, path('readOnlyPort'), c.readOnlyPort, 1, 65535);
  if (c.healthzPort) inRange(errors, path('healthzPort'), c.healthzPort, 1, 65535);

  if (c.tlsMinVersion && !(TLS_VERSIONS as readonly string[]).includes(c.tlsMinVersion)) {
    errors.push(notSupported(path('tlsMinVersion'), c.tlsMinVersion, TLS_VERSIONS));
  }
  (c.tlsCipherSuites ?? []).forEach((suite, i) => {
    if (TLS13_CIPHER_SUITES.has(suite)) errors.push(invalid(path('tlsCipherSuites').index(i), suite, 'TLS 1.3 cipher suites are not configurable'));
    else if (!TLS_CIPHER_SUITES.has(suite)) errors.push(invalid(path('tlsCipherSuites').index(i), suite, 'unknown cipher suite'));
  });
  if (c.tlsMinVersion === 'VersionTLS13' && c.tlsCipherSuites?.length) {
    errors.push(forbidden(path('tlsCipherSuites'), 'cipher suites cannot be configured when tlsMinVersion is VersionTLS13'));
  }
  if (c.serverTLSBootstrap) requireGates(errors, gates, path('serverTLSBootstrap'), 'RotateAgentServerCertificate');

  const mode = c.authorization?.mode ?? '';
  if (!AUTHORIZATION_MODES.includes(mode)) errors.push(notSupported(path('authorization', 'mode'), mode, AUTHORIZATION_MODES));

  if (c.enableContentionProfiling && !c.enableDebuggingHandlers) {
    errors.push(forbidden(path('enableContentionProfiling'), 'requires enableDebuggingHandlers to be true'));
  }
  if (c.enableSystemLogQuery) {
    requireGates(errors, gates, path('enableSystemLogQuery'), 'NodeLogQuery');
    if (!c.enableSystemLogHandler) errors.push(forbidden(path('enableSystemLogQuery'), 'requires enableSystemLogHandler to be true'));
  }
  return errors;
}
