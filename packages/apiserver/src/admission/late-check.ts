// A kind's store check that is built after the stores it checks (it reads them, or an authorizer
// built on them): until it is provided, a write it would check fails closed, with a 500 and a log
// line, rather than pass unchecked.
import { newInternalError } from '@plat/apimachinery';
import type { StoreCheck } from '@plat/registry';
import type { Logger } from 'pino';

export class LateStoreCheck {
  private implementation: StoreCheck | undefined;

  constructor(
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** The check the stores run: the implementation once provided, else a refusal. */
  readonly check: StoreCheck = (attributes) => {
    if (this.implementation) return this.implementation(attributes);
    const error = new Error(`${this.name} is not ready: the write is refused rather than let through unchecked`);
    this.logger.error({ check: this.name }, error.message);
    throw newInternalError(error);
  };

  provide(implementation: StoreCheck): void {
    if (this.implementation) throw new Error(`${this.name} provided twice`);
    this.implementation = implementation;
  }
}
