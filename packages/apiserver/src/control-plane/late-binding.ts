// A value some parts are given before it exists, where the construction order cannot break the
// cycle (the catalog's stores serve the never-stored kinds, whose services need the authorizer
// built on the catalog's stores). Reading it before it is set is refused with a 500, logged, never
// answered with a default.
import { newInternalError } from '@plat/apimachinery';
import type { Logger } from 'pino';

export class LateBinding<T> {
  private value: T | undefined;
  private bound = false;

  constructor(
    private readonly what: string,
    private readonly logger: Logger,
  ) {}

  set(value: T): void {
    if (this.bound) throw new Error(`${this.what} bound twice`);
    this.value = value;
    this.bound = true;
  }

  /** The value; a 500 StatusError before it is set. */
  get(): T {
    if (this.bound) return this.value as T;
    const error = new Error(`${this.what} is not ready`);
    this.logger.error({ binding: this.what }, error.message);
    throw newInternalError(error);
  }
}
