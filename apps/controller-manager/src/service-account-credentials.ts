// --use-service-account-credentials, as kube-controller-manager does it: each controller talks to
// the API as its own service account in the system namespace (created when missing), with a token
// the controller-manager requests for it (TokenRequest) and renews before it expires. The
// bootstrap policy binds each account to its system:controller:<name> role; the controller-manager's
// own identity only watches, elects a leader and asks for these tokens.
import { isStatusError } from '@plat/apimachinery';
import { Client, sleep, type ClientConfig, type Logger } from '@plat/client';
import { controllerServiceAccounts } from './controller-accounts.js';
import type { ControllerName } from './options.js';
import { serviceAccountsRef } from './names.js';

/** Upstream asks for an hour; a token is renewed once 80% of its life is gone. */
const TOKEN_SECONDS = 3600;
const RENEW_AT = 0.8;
const RETRY_MS = 10_000;

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

export class ServiceAccountCredentials {
  private readonly clients: Client[] = [];

  constructor(
    /** The controller-manager's own client: its server, its CA, its credentials. */
    private readonly own: Client,
    private readonly namespace: string,
    private readonly domain: string,
    private readonly logger: Logger,
  ) {}

  /** A client acting as `controller`'s service account, its token renewed until `signal` aborts. */
  async clientFor(controller: ControllerName, signal: AbortSignal): Promise<Client> {
    const account = controllerServiceAccounts[controller];
    await this.ensureAccount(account);
    const first = await this.requestToken(account);
    const { server, ca, userAgent } = this.own.rest.config;
    const config: ClientConfig = { server, ...(ca && { ca }), ...(userAgent && { userAgent: `${userAgent}/${account}` }), token: first.token };
    const client = new Client(config);
    this.clients.push(client);
    void this.renew(client, account, first.expiresAt, signal);
    return client;
  }

  close(): void {
    for (const client of this.clients) client.close();
  }

  private async ensureAccount(name: string): Promise<void> {
    const accounts = this.own.resource(serviceAccountsRef).namespace(this.namespace);
    try {
      await accounts.get(name);
    } catch (error) {
      if (!isStatusError(error) || error.code !== 404) throw error;
      try {
        await accounts.create({ metadata: { name, namespace: this.namespace } });
        this.logger.info({ serviceAccount: `${this.namespace}/${name}` }, 'created the service account of a controller');
      } catch (createError) {
        // Another replica made it meanwhile.
        if (!isStatusError(createError) || createError.code !== 409) throw createError;
      }
    }
  }

  private async requestToken(account: string): Promise<{ token: string; expiresAt: number }> {
    const answer = await this.own.rest.request<TokenRequestStatus>({
      method: 'POST',
      path: `/api/v1/namespaces/${this.namespace}/serviceaccounts/${account}/token`,
      body: { apiVersion: `authentication.${this.domain}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: TOKEN_SECONDS } },
    });
    const token = answer.status?.token;
    if (!token) throw new Error(`the token request for ${this.namespace}/${account} returned no token`);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '') || Date.now() + TOKEN_SECONDS * 1000;
    return { token, expiresAt };
  }

  private async renew(client: Client, account: string, expiresAt: number, signal: AbortSignal): Promise<void> {
    let until = expiresAt;
    while (!signal.aborted) {
      await sleep(Math.max(0, (until - Date.now()) * RENEW_AT), signal);
      if (signal.aborted) return;
      try {
        const next = await this.requestToken(account);
        client.rest.config.token = next.token;
        until = next.expiresAt;
      } catch (err) {
        this.logger.warn({ err, serviceAccount: `${this.namespace}/${account}` }, 'renewing a controller token failed; retrying');
        await sleep(RETRY_MS, signal);
      }
    }
  }
}
