// How to reach one webhook and what to present to it: what a client config (a kubeconfig file, a
// URL, a Service) comes down to, and all a WebhookClient needs.

/** Where a connection goes when not to the URL's host: a Service's endpoint. */
export interface DialTarget {
  host: string;
  port: number;
}

export interface WebhookConnection {
  /** The URL every review is posted to; its host is the Host header (and, by default, the TLS name). */
  url: string;
  /** PEM of the authorities of the webhook's certificate; absent: the system's. */
  ca?: string;
  /** false with insecure-skip-tls-verify. */
  verifyServer: boolean;
  /** The name the webhook's certificate must carry, when not the URL's host (tls-server-name; a Service's name.namespace.svc). */
  serverName?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  /** The Authorization header: a bearer token or basic credentials. */
  authorization?: string;
  /** The User-Agent header; default plat-apiserver. */
  userAgent?: string;
  /**
   * Asked at each request for where to connect instead of the URL's host, as upstream's Dial for a
   * Service: the Host header and TLS name stay the Service's while the connection goes to what the
   * service resolver says. Throws when the Service cannot be resolved.
   */
  dial?: () => DialTarget;
}
