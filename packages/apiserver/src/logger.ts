// The server's logger: pino JSON lines, one per event.
import { pino, type DestinationStream, type Logger } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const logLevels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export function createLogger(options: { level?: LogLevel; destination?: DestinationStream } = {}): Logger {
  const config = { level: options.level ?? 'info' };
  return options.destination ? pino(config, options.destination) : pino(config);
}

export type { Logger };
