// What the client logs through: pino's calling convention (an object of fields, then a message), so a
// pino logger fits as it is.

export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

const ignore = (): void => {};

/** Discards everything. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
