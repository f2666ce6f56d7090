// Where a webhook's Service is reached (upstream's ServiceResolver). The default names the Service
// by its cluster DNS name, as upstream's default resolver does; the API server plugs one that reads
// the Service's Endpoints, and tests one that answers with a loopback address.

export interface ServiceResolver {
  /** The https URL whose host (and port) a connection to the Service goes to; throws when there is none. */
  resolve(namespace: string, name: string, port: number): URL;
}

/** `https://<name>.<namespace>.svc:<port>`. */
export const defaultServiceResolver: ServiceResolver = {
  resolve(namespace, name, port) {
    if (!name || !namespace || !port) throw new Error('cannot resolve an empty service name or namespace or port');
    return new URL(`https://${name}.${namespace}.svc:${port}`);
  },
};
